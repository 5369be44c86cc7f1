//go:build soak && !windows

package integration

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/fakeclaude"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// newestClaudeEnv names the binary of the newest Claude Code to run the
// approvals test against as well, beside the one on PATH: install it in a
// private prefix, e.g.
//
//	npm install --prefix /tmp/cc-new @anthropic-ai/claude-code@latest
//	SOTD_CLAUDE_NEWEST=/tmp/cc-new/node_modules/.bin/claude
const newestClaudeEnv = "SOTD_CLAUDE_NEWEST"

// dialogs are what Claude Code shows when it asks a person before a command:
// 2.1.197's "This command requires approval", the question of a permission
// dialog, and 2.1.332's auto mode telling that its check of an unruled command
// cannot reach the server (before it asks "Do you want to proceed?").
var dialogs = []string{"requires approval", "Do you want to proceed?", "Auto mode can't check actions"}

// TestClaudeMailNeedsNoApproval (a soak: two real agents take a minute on a
// loaded box) runs the real Claude Code in a row, in its
// default mode, from a fresh HOME in which `sotd hooks install --claude` is
// all that was done, against a fake Messages API that answers the wake's
// notice as a model would: it runs comm-poll.sh, then sotd send to the sender.
// With the install's permission rules the row polls and replies with no dialog
// on its screen, and the reply is filed; with --no-permissions the same row
// stops at Claude Code's dialog (so the rules are what let it through). The
// newest Claude Code runs too when SOTD_CLAUDE_NEWEST names its binary.
func TestClaudeMailNeedsNoApproval(t *testing.T) {
	t.Parallel()
	claude := realClaude(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not on PATH: the rows would run on the built-in screen, which this test does not read")
	}
	agents := []struct{ name, bin string }{{"path", claude}, {"newest", os.Getenv(newestClaudeEnv)}}
	for _, a := range agents {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			if a.bin == "" {
				t.Skipf("%s is not set: it names the newest Claude Code's binary (installed in a private npm prefix) to test too", newestClaudeEnv)
			}
			for _, perms := range []bool{true, false} {
				name := "rules"
				if !perms {
					name = "no-permissions"
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					mailWithoutDialog(t, a.bin, perms)
				})
			}
		})
	}
}

// mailWithoutDialog is one row of the approvals test: a fresh box and HOME,
// the install (with its rules when perms), mail to the row, and what follows.
func mailWithoutDialog(t *testing.T, claude string, perms bool) {
	started := time.Now()
	api, err := fakeclaude.Start(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	const reply = "pong from the row"
	api.Plan(registry.WakeNotice, "comm-poll.sh", "sotd send @Tester '"+reply+"'")

	b := newBox(t, "box")
	proj := offlineClaude(t, b, api)
	install := []string{"hooks", "install", "--claude"}
	if !perms {
		install = append(install, "--no-permissions")
	}
	b.must("", install...)
	b.serve()
	c := dialRows(t, b)
	r := b.run("", "", "spawn", "--handle", "Claude-box", "--agent", "claude", "--cwd", proj, "--", claude)
	if r.code != 0 {
		t.Fatalf("spawn: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	t.Cleanup(func() { b.run("", "", "despawn", id) })
	pty := func() wire.PtyScreen {
		var s wire.PtyScreen
		if err := c.Call(context.Background(), wire.OpPtyScreen, wire.WorkspaceRef{WorkspaceID: id}, &s); err != nil {
			t.Fatalf("the row's screen: %v", err)
		}
		return s
	}
	screen := func() string { return strings.Join(pty().Lines, "\n") }
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the row shows:\n%s\nthe tool results: %q", screen(), api.ToolResults())
		}
	})
	dialog := func(s string) string {
		for _, d := range dialogs {
			if strings.Contains(s, d) {
				return d
			}
		}
		return ""
	}
	// The text in Claude Code's prompt box, ok false when the cursor is not in it.
	box := func() (string, bool) {
		s := pty()
		if s.Cursor.Row < 0 || s.Cursor.Row >= len(s.Lines) {
			return "", false
		}
		return strings.CutPrefix(strings.TrimRight(s.Lines[s.Cursor.Row], " "), "❯\u00a0")
	}
	// Mail waits for the empty prompt, as the wake tests' does.
	testutil.Eventually(t, agentStep, "Claude Code's empty prompt", func() bool {
		text, ok := box()
		return ok && text == ""
	})

	b.must("Tester", "join")
	b.must("Tester", "send", "@Claude-box", "are you there?")
	// The wake's part ends when the notice reaches the model. Under load a
	// notice typed into the box has been seen to stay there unsent (the
	// wake's to answer, not this test's): after unsent, Enter is pressed as a
	// person would, and said.
	const unsent = 15 * time.Second
	var sitting time.Time
	testutil.Eventually(t, agentStep, "the wake's notice submitted to the fake Messages API", func() bool {
		for _, p := range api.Prompts() {
			if strings.Contains(p.Text, registry.WakeNotice) {
				return true
			}
		}
		switch text, ok := box(); {
		case !ok || text != registry.WakeNotice:
			sitting = time.Time{}
		case sitting.IsZero():
			sitting = time.Now()
		case time.Since(sitting) > unsent:
			t.Logf("the wake's notice sat in the box unsent for %v: pressing Enter", unsent)
			in := wire.PtyInput{WorkspaceID: id, DataB64: base64.StdEncoding.EncodeToString([]byte("\r"))}
			if err := c.Call(context.Background(), wire.OpPtyInput, in, &wire.Done{}); err != nil {
				t.Fatal(err)
			}
			sitting = time.Time{}
		}
		return false
	})
	if !perms {
		testutil.Eventually(t, agentStep, "Claude Code asking before comm-poll.sh (no rule allows it)", func() bool {
			return dialog(screen()) != ""
		})
		return
	}
	testutil.Eventually(t, agentStep, "the row's reply, filed to @Tester with no dialog", func() bool {
		if s := screen(); dialog(s) != "" {
			t.Fatalf("Claude Code asks before a mail command (%q):\n%s", dialog(s), s)
		}
		return strings.Contains(b.must("Tester", "poll"), "@Claude-box")
	})
	testutil.Eventually(t, agentStep, "comm-poll.sh's mail and sotd send's filed line in the tool results", func() bool {
		results := strings.Join(api.ToolResults(), "\n")
		return strings.Contains(results, "are you there?") && strings.Contains(results, "filed -> @Tester")
	})
	if s := screen(); dialog(s) != "" {
		t.Errorf("Claude Code asks before a mail command (%q):\n%s", dialog(s), s)
	}
	t.Logf("%s: install, spawn, mail polled and answered with no dialog: %v", claude, time.Since(started).Round(10*time.Millisecond))
}

// realClaude is the real Claude Code on PATH: skipped without it, failed
// without it under CI, whose .ci/run installs it.
func realClaude(t *testing.T) string {
	t.Helper()
	claude, err := exec.LookPath("claude")
	switch {
	case err == nil:
	case os.Getenv("CI") != "":
		t.Fatal("claude is not on PATH and CI is set: .ci/run must `npm install -g @anthropic-ai/claude-code`")
	default:
		t.Skip("claude is not on PATH: `npm install -g @anthropic-ai/claude-code` to run sotd's mail under the real Claude Code")
	}
	return claude
}

// offlineClaude makes box b's processes run the real Claude Code offline
// against api: a fresh HOME in which Claude Code has been onboarded, trusts the
// folder proj (returned, made there) and takes the API key it is given, and
// sotd first on PATH. The install of sotd's hooks is the caller's.
func offlineClaude(t *testing.T, b *box, api *fakeclaude.Server) (proj string) {
	t.Helper()
	scratch := filepath.Dir(b.home)
	proj = filepath.Join(scratch, "proj")
	if err := os.Mkdir(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	proj, err := filepath.EvalSymlinks(proj)
	if err != nil {
		t.Fatal(err)
	}
	const key = "sk-ant-api03-sotd-approvals-test-00000000000000000000000000000000000"
	cfg, err := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true,
		"projects":               map[string]any{proj: map[string]any{"hasTrustDialogAccepted": true}},
		"customApiKeyResponses":  map[string]any{"approved": []string{key[len(key)-20:]}, "rejected": []string{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(scratch, ".claude.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	b.extra = []string{
		"PATH=" + filepath.Dir(sotdBin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + scratch, "ANTHROPIC_API_KEY=" + key, "ANTHROPIC_BASE_URL=" + api.URL,
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}
	return proj
}
