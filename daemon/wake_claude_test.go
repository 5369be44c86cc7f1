//go:build agents && !windows

package daemon

import (
	"encoding/base64"
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
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/wake"
	"github.com/sotcomm/sotd/wire"
)

// dummyKey is the API key the real agents get: the fake Messages API takes any.
const dummyKey = "sk-ant-api03-sotd-wake-test-0000000000000000000000000000000000000000"

// agentBinary is the real agent CLI on PATH. Without it the test is skipped,
// except under CI, whose .ci/run installs both from the npm registry.
func agentBinary(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	switch {
	case err == nil:
		return p
	case os.Getenv("CI") != "":
		t.Fatalf("%s is not on PATH and CI is set: .ci/run must `npm install -g %s`", name, pkg)
	default:
		t.Skipf("%s is not on PATH: `npm install -g %s` to run the wake against the real agent", name, pkg)
	}
	return ""
}

// claudeEnv makes a scratch HOME in which the real Claude Code starts in proj
// straight to its prompt, with no network: onboarding done, proj trusted, the
// dummy key approved, and the API at api.
func claudeEnv(t *testing.T, proj, api string) []string {
	t.Helper()
	dir := t.TempDir()
	if err := fakeclaude.Config(dir, proj, dummyKey); err != nil {
		t.Fatal(err)
	}
	return []string{"HOME=" + dir, "ANTHROPIC_API_KEY=" + dummyKey, "ANTHROPIC_BASE_URL=" + api,
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
}

// project is a folder for a row, named as the agent will see it (no symlinks),
// since both agents key their trust by it.
func project(t *testing.T) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// promptRow is the text of the cursor's row when it is Claude Code's main
// prompt (the glyph and its no-break space), ok false otherwise.
func promptRow(s wire.PtyScreen) (string, bool) {
	if s.Cursor.Row < 0 || s.Cursor.Row >= len(s.Lines) {
		return "", false
	}
	line := strings.TrimRight(s.Lines[s.Cursor.Row], " ")
	rest, ok := strings.CutPrefix(line, "❯\u00a0")
	return rest, ok
}

func screenOfRow(t *testing.T, c *wire.Client, id string) wire.PtyScreen {
	t.Helper()
	return rowCall[wire.PtyScreen](t, c, wire.OpPtyScreen, wire.WorkspaceRef{WorkspaceID: id})
}

// noticeAt is when the fake API first got a prompt that ends with the notice
// at or after since, ok false when it has not.
func noticeAt(api *fakeclaude.Server, since time.Time) (time.Time, bool) {
	for _, p := range api.Prompts() {
		if !p.At.Before(since) && strings.HasSuffix(strings.TrimSpace(p.Text), registry.WakeNotice) {
			return p.At, true
		}
	}
	return time.Time{}, false
}

// wakeLines is the wake loop's lines of a daemon log.
func wakeLines(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "wake") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestWakeRealClaude runs the wake over the real Claude Code (from the npm
// registry) in rows of each backend, with a fake Messages API on 127.0.0.1 in
// place of the network. Mail filed the moment Claude Code's prompt appears gets
// the notice typed and submitted (noticeWithin): the fake API receives it as
// the user's prompt. Mail filed while the box holds a draft leaves the draft as
// it is, for 2 ticks and the stillness wait. (A Codex row's wake is
// TestWakeRealCodex's.)
func TestWakeRealClaude(t *testing.T) {
	t.Parallel()
	claude := agentBinary(t, "claude", "@anthropic-ai/claude-code")
	for _, k := range backendKinds(t) {
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			apiLog := &testutil.SyncBuffer{}
			api, err := fakeclaude.Start(slog.New(slog.NewTextHandler(apiLog, nil)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				api.Close()
				if t.Failed() {
					t.Logf("the fake Messages API's log:\n%s", apiLog)
				}
			})
			r := startRig(t, withRows(k.Make(t)))
			c := r.dial(t)

			proj := project(t)
			spawned := time.Now()
			id := rowCall[wire.WorkspaceRef](t, c, wire.OpWorkspaceSpawn, wire.WorkspaceSpawn{
				Label: "claude", Handle: "Claude-box", Agent: string(rows.Claude), Cwd: proj, Argv: []string{claude}, Env: claudeEnv(t, proj, api.URL),
			}).WorkspaceID
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("the daemon's wake said:\n%s\nthe Claude Code row shows:\n%s", wakeLines(r.logs.String()), strings.Join(screenOfRow(t, c, id).Lines, "\n"))
				}
			})

			var s wire.PtyScreen
			testutil.Eventually(t, 30*time.Second, "Claude Code's empty prompt", func() bool {
				s = screenOfRow(t, c, id)
				text, ok := promptRow(s)
				return ok && text == ""
			})
			t.Logf("%s: spawn to Claude Code's prompt: %v", k.Name, time.Since(spawned).Round(10*time.Millisecond))

			filed := time.Now()
			fileTo(t, c, "Claude-box")
			testutil.Eventually(t, noticeWithin, "the notice submitted to the fake Messages API after the filing", func() bool {
				_, ok := noticeAt(api, filed)
				return ok
			})
			at, _ := noticeAt(api, filed)
			t.Logf("%s: filing to notice submitted: %v", k.Name, at.Sub(filed).Round(10*time.Millisecond))

			testutil.Eventually(t, 10*time.Second, "the turn's reply and an empty prompt again", func() bool {
				s = screenOfRow(t, c, id)
				text, ok := promptRow(s)
				return ok && text == "" && hasLine(s, fakeclaude.Reply)
			})
			const draft = "half a thought"
			rowCall[wire.Done](t, c, wire.OpPtyInput, wire.PtyInput{WorkspaceID: id, DataB64: base64.StdEncoding.EncodeToString([]byte(draft))})
			testutil.Eventually(t, 5*time.Second, "the draft in the box", func() bool {
				text, ok := promptRow(screenOfRow(t, c, id))
				return ok && text == draft
			})
			filed = time.Now()
			fileTo(t, c, "Claude-box")
			for held := filed.Add(2*wake.Every + wake.StillFor); time.Now().Before(held); time.Sleep(50 * time.Millisecond) {
				if text, ok := promptRow(screenOfRow(t, c, id)); !ok || text != draft {
					t.Fatalf("the box read %q (a main prompt: %v) after mail was filed, want the draft %q untouched", text, ok, draft)
				}
			}
			if at, ok := noticeAt(api, filed); ok {
				t.Errorf("the fake Messages API got the notice at %v, after the draft was in the box", at)
			}
			rowCall[wire.Done](t, c, wire.OpWorkspaceDestroy, wire.WorkspaceRef{WorkspaceID: id})
		})
	}
}
