//go:build !windows

package integration

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/internal/fakeopenai"
	"github.com/sotcomm/sotd/internal/testutil"
)

// TestCodexAsksAboutAHookEditedAfterInstall: the trust `sotd hooks install`
// records is for the hooks as it wrote them. A Stop hook edited by hand after
// the install (a timeout added) is one the real Codex no longer trusts: a new
// session opens on "Hooks need review", and sotd doctor names the hook and how
// to go on. (The hooks as written run with no review: see
// TestCodexMailNeedsNoApproval and TestNewcomer.)
func TestCodexAsksAboutAHookEditedAfterInstall(t *testing.T) {
	t.Parallel()
	codex := realCodex(t, "Codex's trust in sotd's hooks")
	api, err := fakeopenai.Start(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	b := newBox(t, "box")
	proj := filepath.Join(filepath.Dir(b.home), "proj")
	codexHome := codexInstalled(t, b, api, "", nil, proj)
	settings := filepath.Join(codexHome, "hooks.json")
	body, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(body), `"command": "sotd hook stop",`, `"command": "sotd hook stop", "timeout": 5,`, 1)
	if edited == string(body) {
		t.Fatalf("no Stop hook to edit in:\n%s", body)
	}
	if err := os.WriteFile(settings, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	b.serve()
	out := b.run("", "", "doctor").stdout
	if !strings.Contains(out, "WARN  codex hooks    Codex skips sotd's hooks in "+settings+": changed since sotd wrote them, and not trusted as they are now: Stop") ||
		!regexp.MustCompile(`(?m)^healthy, \d+ warnings? \(see WARN above\)$`).MatchString(out) {
		t.Errorf("doctor after the edit:\n%s", out)
	}
	id := spawnRow(t, b, "Codex-box", "codex", proj, codex)
	testutil.Eventually(t, agentStep, `Codex asking for review of the edited hook ("Hooks need review")`, func() bool {
		return strings.Contains(b.run("", "", "rows", "screen", id).stdout, "Hooks need review")
	})
}
