//go:build agents && !windows

package daemon

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/fakeopenai"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/wire"
)

// codexEnv makes a scratch HOME in which the real Codex starts in proj straight
// to its prompt, offline: an API key login, proj trusted, and api its model
// provider.
func codexEnv(t *testing.T, proj string, api *fakeopenai.Server) []string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".codex")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"auth.json":   `{"auth_mode":"apikey","OPENAI_API_KEY":"` + dummyKey + `"}`,
		"config.toml": api.CodexConfig() + fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n", proj),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if err := fakeopenai.StopCodexDaemons(dir); err != nil {
			t.Error(err)
		}
	})
	return []string{"HOME=" + filepath.Dir(dir), "CODEX_HOME=" + dir, "OPENAI_API_KEY=" + dummyKey}
}

// TestWakeRealCodex runs the wake over the real Codex (from the npm registry)
// in a row of each backend, the built-in PTY's and tmux's, with a fake
// Responses API on 127.0.0.1 in place of the network: mail filed once Codex's
// composer is empty gets the notice typed and submitted (noticeWithin), which
// the fake API receives as the user's prompt. (integration's
// TestWakeRealCodexRow has the rest: drafts, one notice a batch, and the
// notice's command run by Codex's shell.)
func TestWakeRealCodex(t *testing.T) {
	t.Parallel()
	codex := agentBinary(t, "codex", "@openai/codex")
	for _, k := range backendKinds(t) {
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			api, err := fakeopenai.Start(slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { api.Close() })
			r := startRig(t, withRows(k.Make(t)))
			c := r.dial(t)
			proj := project(t)
			id := rowCall[wire.WorkspaceRef](t, c, wire.OpWorkspaceSpawn, wire.WorkspaceSpawn{
				Label: "codex", Handle: "Codex-box", Agent: string(rows.Codex), Cwd: proj, Argv: []string{codex}, Env: codexEnv(t, proj, api),
			}).WorkspaceID
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("the daemon's wake said:\n%s\nthe Codex row shows:\n%s", wakeLines(r.logs.String()), strings.Join(screenOfRow(t, c, id).Lines, "\n"))
				}
			})
			testutil.Eventually(t, 30*time.Second, "Codex's empty composer", func() bool {
				s := screenOfRow(t, c, id)
				return s.Cursor.Row >= 0 && s.Cursor.Row < len(s.Lines) && strings.HasPrefix(s.Lines[s.Cursor.Row], "› ") && s.Cursor.Col == 2
			})

			filed := time.Now()
			fileTo(t, c, "Codex-box")
			testutil.Eventually(t, noticeWithin, "the notice submitted to the fake Responses API after the filing", func() bool {
				_, ok := api.Prompted(registry.WakeNotice, filed)
				return ok
			})
			at, _ := api.Prompted(registry.WakeNotice, filed)
			t.Logf("%s: filing to notice submitted: %v", k.Name, at.Sub(filed).Round(10*time.Millisecond))
			rowCall[wire.Done](t, c, wire.OpWorkspaceDestroy, wire.WorkspaceRef{WorkspaceID: id})
		})
	}
}
