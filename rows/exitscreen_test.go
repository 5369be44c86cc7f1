//go:build !windows

package rows_test

import (
	"strings"
	"testing"

	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/rows/rowstest"
)

// A program that prints one line and exits at once leaves that line on its
// row's screen, with its exit code, on every backend.
func TestExitedRowKeepsItsLastScreen(t *testing.T) {
	eachBackend(t, rows.Options{}, func(t *testing.T, b rows.Backend) {
		info, err := b.Start(rows.Spec{Label: "Repo", Agent: rows.Other, Cwd: t.TempDir(),
			Argv: []string{"/bin/sh", "-c", "echo FATAL: no key; exit 3"}})
		if err != nil {
			t.Fatal(err)
		}
		id := info.Spec.ID
		got := rowstest.WaitPhase(t, b, id, wait, rows.Stopped)
		if got.ExitCode != 3 {
			t.Errorf("exit code %d, want 3", got.ExitCode)
		}
		s, err := b.Screen(id)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(lines(s), "\n"), "FATAL: no key") {
			t.Errorf("the exited row's screen lost its one line:\n%s", strings.Join(lines(s), "\n"))
		}
	})
}
