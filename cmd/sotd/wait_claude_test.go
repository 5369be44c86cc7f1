//go:build !windows

package main

import (
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
// (the test logs it); the bound is wider so that a loaded machine, where Claude
// Code itself is slow, does not fail the test.
const rewakeWithin = 15 * time.Second

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
		t.Skip("claude is not on PATH: `npm install -g @anthropic-ai/claude-code` to run the rewake against the real agent")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not on PATH")
	}
	for name, claude := range claudes {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rewakeRealClaude(t, claude)
		})
	}
}

func rewakeRealClaude(t *testing.T, claude string) {
	apiLog := &testutil.SyncBuffer{}
	api, err := fakeclaude.Start(slog.New(slog.NewTextHandler(apiLog, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	p := newPlain(t, t.TempDir())
	dir, h, s, proj, userHome, sotd, out := p.dir, p.h, p.s, p.proj, p.userHome, p.sotd, p.out
	if err := fakeclaude.Config(userHome, proj, rewakeDummyKey); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(userHome, ".claude", "settings.json")
	out.Reset()
	if code := (hooks.Install{Agent: hooks.Claude, Settings: settings, Sotd: sotd, Home: h, Out: out, Now: time.Now}).Run(); code != 0 {
		t.Fatalf("hooks install: %d %s", code, out.String())
	}

	sock := filepath.Join(dir, "tmux.sock")
	env := []string{"HOME=" + userHome, "PATH=" + filepath.Join(dir, "bin") + ":" + os.Getenv("PATH"), "TERM=xterm-256color",
		"ANTHROPIC_API_KEY=" + rewakeDummyKey, "ANTHROPIC_BASE_URL=" + api.URL,
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		home.EnvName + "=alice", "SOT_COMM_HOME=" + h.Dir, "SOT_SELF_HOST=box",
		hooks.EnvWaitFor + "=3s", testutil.RaceEnv()}
	argv := append([]string{"-S", sock, "new-session", "-d", "-x", "160", "-y", "50", "-c", proj, "env", "-i"}, env...)
	if b, err := exec.Command("tmux", append(argv, claude)...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, b)
	}
	pane := func() string {
		b, _ := exec.Command("tmux", "-S", sock, "capture-pane", "-p").Output()
		return string(b)
	}
	agent := paneAgent(t, sock)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the session shows:\n%s\nthe fake Messages API's log:\n%s", pane(), apiLog)
		}
		exec.Command("tmux", "-S", sock, "kill-server").Run()
		// Claude Code writes its session files as it exits: the temporary
		// folders are removed only after that.
		testutil.Eventually(t, 30*time.Second, "Claude Code's exit", func() bool {
			return ancestry.Still(agent.PID, agent.Start) == ancestry.Gone
		})
	})

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

	file := func(msgs ...string) time.Time { return p.file(t, msgs...) }
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

	wakes(1, "hi, alice", "and a second line in the same filing")
	still(t, settle, notices, 1, "the same batch, through the turn it started and its turn end")
	wakes(2, "a new batch")
	if code := s.Leave(""); code != client.ExitOK {
		t.Fatalf("leave: %d %s", code, out.String())
	}
	file("after the leave")
	still(t, settle, notices, 2, "after the leave")
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
