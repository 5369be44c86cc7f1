//go:build agents && !windows

package main

import (
	"bytes"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/hooks"
	"github.com/sotcomm/sotd/internal/fakeclaude"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
)

// EnvClaudeNewest names the newest Claude Code's executable, which .ci/run
// installs beside the pinned one on PATH; the rewake test runs against both.
const EnvClaudeNewest = "SOTD_CLAUDE_NEWEST"

// rewakeWithin bounds the time from a filing to the model request that
// carries the notice: the waiter's look (waitPoll, 250 ms), Claude Code's
// rewake and its request. The target is 4 s and an idle machine takes under one
// (the test logs it; the wake matrix, integration's soak, holds it to the
// target); the bound fails only a wake that never comes, since CI's full
// suite on 2 cores was seen to take 10.7 s.
const rewakeWithin = 30 * time.Second

// turnWithin bounds a whole turn the notice started: two tool calls, each
// through the PreToolUse and PostToolUse hooks (sotd processes built with
// -race, two seconds each at CI's load) and a model request. It fails only a
// turn that never ends, which a dialog would cause: under load 15 s was seen
// not to be enough for a turn that ended well.
const turnWithin = time.Minute

// settle is how long a test watches for a notice that must not come: longer
// than a notice takes on an idle machine, several times over.
const settle = 4 * time.Second

// rewakeDummyKey is the API key Claude Code gets: the fake Messages API takes any.
const rewakeDummyKey = "sk-ant-api03-sotd-rewake-test-00000000000000000000000000000000000000"

// TestRewakeRealClaude runs the real Claude Code TUI, a plain session in a tmux
// window the test owns (no row, no daemon), with the hooks `sotd hooks
// install --claude` writes, against the fake Messages API. The session is
// joined as @alice and idle. Its waiter re-arms through the FileChanged hook
// (its life shortened to seconds) without a model request; mail filed then
// reaches the model as the notice within rewakeWithin; the same batch wakes
// nothing more; new mail wakes again; after the leave nothing wakes.
func TestRewakeRealClaude(t *testing.T) {
	for name, claude := range realClaudes(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rewakeRealClaude(t, claude, installHooks)
		})
	}
}

// realClaudes is the real Claude Code executables to test against: the
// pinned one on PATH and the newest at $SOTD_CLAUDE_NEWEST, by name. It skips
// the test when there is none, or no tmux to run one in.
func realClaudes(t *testing.T) map[string]string {
	t.Helper()
	claudes := map[string]string{}
	if p, err := exec.LookPath("claude"); err == nil {
		claudes["pinned"] = p
	} else if os.Getenv("CI") != "" {
		t.Fatalf("claude is not on PATH and CI is set: .ci/run must install @anthropic-ai/claude-code")
	}
	if p := os.Getenv(EnvClaudeNewest); p != "" {
		claudes["newest"] = p
	}
	if len(claudes) == 0 {
		t.Skip("claude is not on PATH: `npm install -g @anthropic-ai/claude-code` to run the test against the real agent")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not on PATH")
	}
	return claudes
}

// claudeBox is a fresh box for the real Claude Code: a fake Messages API, a
// user home that starts Claude Code straight to its prompt in proj with no
// network, a comm home, and this test binary on PATH as sotd.
type claudeBox struct {
	dir, proj, userHome, bin string
	sotd                     string // the sotd on PATH, by its path
	h                        home.Home
	api                      *fakeclaude.Server
	apiLog                   *testutil.SyncBuffer
}

func newClaudeBox(t *testing.T) *claudeBox {
	t.Helper()
	b := &claudeBox{dir: t.TempDir(), apiLog: &testutil.SyncBuffer{}}
	api, err := fakeclaude.Start(slog.New(slog.NewTextHandler(b.apiLog, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	b.api = api
	if b.h, err = home.At(filepath.Join(b.dir, "comm")); err != nil {
		t.Fatal(err)
	}
	b.proj, b.userHome, b.bin = filepath.Join(b.dir, "proj"), filepath.Join(b.dir, "home"), filepath.Join(b.dir, "bin")
	for _, d := range []string{b.proj, b.userHome, b.bin} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	b.sotd = filepath.Join(b.bin, "sotd")
	if err := os.Symlink(sotdBin, b.sotd); err != nil {
		t.Fatal(err)
	}
	if err := fakeclaude.Config(b.userHome, b.proj, rewakeDummyKey); err != nil {
		t.Fatal(err)
	}
	return b
}

// env is the environment Claude Code, its commands and its hooks run in, as
// the session @name.
func (b *claudeBox) env(name string, extra ...string) []string {
	return append([]string{"HOME=" + b.userHome, "PATH=" + b.bin + ":" + os.Getenv("PATH"), "TERM=xterm-256color",
		"ANTHROPIC_API_KEY=" + rewakeDummyKey, "ANTHROPIC_BASE_URL=" + b.api.URL,
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		home.EnvName + "=" + name, "SOT_COMM_HOME=" + b.h.Dir, "SOT_SELF_HOST=box"}, extra...)
}

// settings is Claude Code's user settings file in the box.
func (b *claudeBox) settings() string { return filepath.Join(b.userHome, ".claude", "settings.json") }

// installHooks sets the box up as `sotd hooks install --claude` does.
func installHooks(t *testing.T, b *claudeBox, _ string) (afterWake func()) {
	var out bytes.Buffer
	if code := (hooks.Install{Agent: hooks.Claude, Settings: b.settings(), Sotd: b.sotd, Home: b.h, Out: &out, Now: time.Now}).Run(); code != 0 {
		t.Fatalf("hooks install: %d %s", code, out.String())
	}
	return func() {}
}

// startTUI runs claude's TUI in proj, in a tmux window the test owns, and
// returns what its screen shows; the cleanup stops it and waits for its exit.
func (b *claudeBox) startTUI(t *testing.T, claude string, env []string) (pane func() string) {
	t.Helper()
	sock := filepath.Join(b.dir, "tmux.sock")
	argv := append([]string{"-S", sock, "new-session", "-d", "-x", "160", "-y", "50", "-c", b.proj, "env", "-i"}, env...)
	if out, err := exec.Command("tmux", append(argv, claude)...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	pane = func() string {
		out, _ := exec.Command("tmux", "-S", sock, "capture-pane", "-p").Output()
		return string(out)
	}
	agent := paneAgent(t, sock)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the session shows:\n%s\nthe fake Messages API's log:\n%s", pane(), b.apiLog)
		}
		exec.Command("tmux", "-S", sock, "kill-server").Run()
		// Claude Code writes its session files as it exits: the temporary
		// folders are removed only after that.
		testutil.Eventually(t, 30*time.Second, "Claude Code's exit", func() bool {
			return ancestry.Still(agent.PID, agent.Start) == ancestry.Gone
		})
	})
	return pane
}

// rewakeRealClaude sets a box up with setup, starts claude's TUI in it as
// @alice, and runs the rewake's steps (see TestRewakeRealClaude); what setup
// returns checks what the first wake's turn did.
func rewakeRealClaude(t *testing.T, claude string, setup func(*testing.T, *claudeBox, string) (afterWake func())) {
	b := newClaudeBox(t)
	h, api := b.h, b.api
	// @alice joins from the test; the session acts as her by $SOT_COMM_NAME.
	var out bytes.Buffer
	s := &client.Session{Home: h, Host: "box", Cwd: b.proj, Stdout: &out, Stderr: &out, Now: time.Now}
	if code := s.Join(client.JoinArgs{Name: "alice"}); code != client.ExitOK {
		t.Fatalf("join: %d %s", code, out.String())
	}
	afterWake := setup(t, b, claude)
	pane := b.startTUI(t, claude, b.env("alice", hooks.EnvWaitFor+"=3s"))

	started := time.Now()
	waitFiles := filepath.Join(h.StateDir(), "wait-*")
	token := func() string {
		m, _ := filepath.Glob(waitFiles)
		if len(m) != 1 {
			return ""
		}
		b, _ := os.ReadFile(m[0])
		return string(b)
	}
	testutil.Eventually(t, 60*time.Second, "Claude Code's prompt and its first waiter", func() bool {
		return strings.Contains(pane(), "❯") && token() != ""
	})
	t.Logf("start to the first waiter: %v", time.Since(started).Round(10*time.Millisecond))
	first := token()
	testutil.Eventually(t, 30*time.Second, "a waiter re-armed after the first one's life", func() bool {
		return token() != "" && token() != first
	})
	if n := len(api.Prompts()); n != 0 {
		t.Fatalf("the fake API got %d requests before any mail, want none: a re-arm must not wake the model", n)
	}

	file := func(msgs ...string) time.Time {
		t.Helper()
		var lines []filer.Line
		for _, m := range msgs {
			lines = append(lines, filer.Line{From: "bob", To: "alice", Repo: "r", Msg: m, TS: registry.Stamp(time.Now())})
		}
		if _, err := filer.New(h).Append("alice", lines); err != nil {
			t.Fatal(err)
		}
		return time.Now()
	}
	notices := func() int {
		n := 0
		for _, p := range api.Prompts() {
			if strings.Contains(p.Text, registry.WakeNotice) {
				n++
			}
		}
		return n
	}
	// wakes files msgs and waits for the notice in a model request.
	wakes := func(want int, msgs ...string) {
		t.Helper()
		filed := file(msgs...)
		testutil.Eventually(t, rewakeWithin, "the notice in a model request", func() bool { return notices() == want })
		for _, p := range api.Prompts() {
			if strings.Contains(p.Text, registry.WakeNotice) && !p.At.Before(filed) {
				t.Logf("filing to the notice in a model request: %v", p.At.Sub(filed).Round(10*time.Millisecond))
				break
			}
			if strings.Contains(p.Text, "hi, alice") {
				t.Fatalf("the model was given the mail itself: %q", p.Text)
			}
		}
	}
	// still waits out a settle time in which nothing more may wake.
	still := func(want int, why string) {
		t.Helper()
		for end := time.Now().Add(settle); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			if n := notices(); n != want {
				t.Fatalf("%s: %d notices reached the model, want %d", why, n, want)
			}
		}
	}

	wakes(1, "hi, alice", "and a second line in the same filing")
	afterWake()
	still(1, "the same batch, through the turn it started and its turn end")
	wakes(2, "a new batch")
	if code := s.Leave(""); code != client.ExitOK {
		t.Fatalf("leave: %d %s", code, out.String())
	}
	file("after the leave")
	still(2, "after the leave")
}

// paneAgent is the process the tmux window runs: env execs into claude.
func paneAgent(t *testing.T, sock string) ancestry.Proc {
	t.Helper()
	b, err := exec.Command("tmux", "-S", sock, "list-panes", "-F", "#{pane_pid}").Output()
	if err != nil {
		t.Fatalf("tmux list-panes: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("tmux list-panes: %q", b)
	}
	tab, err := ancestry.OSTable()
	if err != nil {
		t.Fatal(err)
	}
	p, err := tab.Proc(pid)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
