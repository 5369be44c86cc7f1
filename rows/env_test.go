//go:build !windows

package rows_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/rows"
)

// A row's environment entries reach its program exactly, over the daemon's own
// (HOME here), on every backend; no value is read as a tmux command or format.
func TestRowSeesItsEnvironment(t *testing.T) {
	eachBackend(t, rows.Options{}, func(t *testing.T, b rows.Backend) {
		dir := t.TempDir()
		out := filepath.Join(dir, "seen")
		home := filepath.Join(dir, "home")
		api := `http://127.0.0.1:1/v1 ;#{session_name} $(true) 'q'`
		_, err := b.Start(rows.Spec{Label: "Repo", Agent: rows.Other, Cwd: dir,
			Argv: []string{"/bin/sh", "-c", `printf '%s\n%s\n' "$HOME" "$API_URL" >"$0.tmp" && mv "$0.tmp" "$0"; exec sleep 300`, out},
			Env:  []string{"HOME=" + home, "API_URL=" + api}})
		if err != nil {
			t.Fatal(err)
		}
		var seen []byte
		testutil.Eventually(t, wait, "the row's program to write its environment", func() bool {
			seen, err = os.ReadFile(out)
			return err == nil
		})
		if got, want := string(seen), home+"\n"+api+"\n"; got != want {
			t.Errorf("the row's program saw HOME and API_URL as\n%q\nwant\n%q", got, want)
		}
	})
}
