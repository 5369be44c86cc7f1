//go:build soak && !windows

package integration

import (
	"io"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/fakeclaude"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
)

// TestRunClaude (a soak: the real Claude Code takes a while to start on a
// loaded box) is the one-word change a person makes: "sotd run -- claude" in
// place of "claude", on a terminal the test holds, on each backend. The row is
// a claude row under the handle join derives in the folder, mail to it is
// typed into the idle agent as the wake's notice and polled by the model's
// comm-poll.sh, and /exit ends sotd run with Claude Code's exit code, 0, and
// removes the row. The newest Claude Code runs too when SOTD_CLAUDE_NEWEST
// names its binary.
func TestRunClaude(t *testing.T) {
	claude := realClaude(t)
	for _, tc := range []struct{ agent, bin, backend string }{
		{"path", claude, "pty"}, {"path", claude, "tmux"},
		{"newest", os.Getenv(newestClaudeEnv), "pty"}, {"newest", os.Getenv(newestClaudeEnv), "tmux"},
	} {
		claude, backend := tc.bin, tc.backend
		t.Run(tc.agent+"/"+backend, func(t *testing.T) {
			if claude == "" {
				t.Skipf("%s is not set: it names the newest Claude Code's binary", newestClaudeEnv)
			}
			if _, err := exec.LookPath("tmux"); backend == "tmux" && err != nil {
				t.Skip("tmux is not installed")
			}
			api, err := fakeclaude.Start(slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { api.Close() })
			api.Plan(registry.WakeNotice, "comm-poll.sh")
			b := newBox(t, "box")
			proj := offlineClaude(t, b, api)
			handle := registry.Tiers(proj, "box")[0]
			b.must("", "hooks", "install", "--claude")
			client := b.extra
			if backend == "pty" {
				// The daemon finds no tmux; the row's PATH is sotd run's.
				b.extra = append(b.extra[:len(b.extra):len(b.extra)], "PATH="+binsOf(t, "sh", "sleep"))
			}
			b.serve()
			b.extra = client

			term, done := onTerminal(t, b, proj, nil, "run", "--", claude)
			testutil.Eventually(t, agentStep, "the row", func() bool { return rowID.MatchString(b.must("", "rows")) })
			id := onlyRow(t, b)
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("the row shows:\n%s\nthe tool results: %q", b.run("", "", "rows", "screen", id).stdout, api.ToolResults())
				}
				b.run("", "", "despawn", id)
			})
			if got := b.must("", "rows"); !regexp.MustCompile(`(?m)^` + id + ` +\S+ +claude +@` + handle + ` `).MatchString(got) {
				t.Fatalf("the row is not a claude row under @%s:\n%s", handle, got)
			}
			testutil.Eventually(t, agentStep, "Claude Code's prompt", func() bool {
				return strings.Contains(b.must("", "rows", "screen", id), "❯")
			})

			b.must("Tester", "join")
			filed := time.Now()
			b.must("Tester", "send", "@"+handle, "are you there?")
			testutil.Eventually(t, agentStep, "the wake's notice at the model", func() bool {
				for _, p := range api.Prompts() {
					if strings.Contains(p.Text, registry.WakeNotice) {
						return true
					}
				}
				return false
			})
			t.Logf("%s, %s row: filing to the notice at the model: %v", claude, backend, time.Since(filed).Round(10*time.Millisecond))
			testutil.Eventually(t, agentStep, "the mail in comm-poll.sh's result", func() bool {
				return strings.Contains(strings.Join(api.ToolResults(), "\n"), "are you there?")
			})

			// /exit is typed as a person types it: the command, then Enter
			// once Claude Code's menu has taken it.
			if _, err := term.tty.Write([]byte("/exit")); err != nil {
				t.Fatal(err)
			}
			testutil.Eventually(t, agentStep, "/exit in the prompt", func() bool {
				return strings.Contains(b.must("", "rows", "screen", id), "/exit")
			})
			pressUntilEnd(t, term, done, "\r", 0)
			testutil.Eventually(t, 10*time.Second, "the line that the agent exited", func() bool {
				return term.Contains("sotd run: row " + id + " ended: its program exited with status 0; the row is removed")
			})
		})
	}
}
