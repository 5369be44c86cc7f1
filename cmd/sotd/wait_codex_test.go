//go:build agents && !windows

package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/hooks"
	"github.com/sotcomm/sotd/internal/fakeopenai"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
)

// codexRingWithin bounds the time from a filing to the model request that
// carries the notice in a plain Codex session: the waiter's look, `codex
// queue`, and Codex's own pick-up of its queue, which took 4-9 s in 0.171 on an
// idle machine (the test logs it).
const codexRingWithin = 45 * time.Second

// codexSettle is how long the test watches for a notice that must not come:
// past Codex's own queue pick-up, twice over.
const codexSettle = 20 * time.Second

// codexDummyKey is the API key Codex gets: the fake Responses API takes any.
const codexDummyKey = "sk-sotd-codex-test-0000000000000000"

// TestCodexDoorbellRealCodex runs the real Codex 0.171 TUI, a plain session
// (`codex --no-daemon` in a tmux window the test owns: no row, no daemon)
// with the hooks `sotd hooks install --codex` writes, trusted, against the
// fake Responses API. The session acts as @alice. After its first turn
// (Codex starts its thread, and so its SessionStart hooks, with the first
// prompt), mail filed reaches the model as the notice, queued by the detached
// waiter, never as the mail itself; the batch wakes once; a draft in the
// composer stays as it is; after the leave nothing wakes.
func TestCodexDoorbellRealCodex(t *testing.T) {
	codex, err := exec.LookPath("codex")
	switch {
	case err == nil:
	case os.Getenv("CI") != "":
		t.Fatal("codex is not on PATH and CI is set: .ci/run must `npm install -g @openai/codex`")
	default:
		t.Skip("codex is not on PATH: `npm install -g @openai/codex` to run the doorbell against the real Codex")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not on PATH")
	}
	t.Parallel()
	api, err := fakeopenai.Start(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	p := newPlain(t, testutil.ShortDir(t, "cdx"))
	dir, h, s, proj, userHome, sotd, out := p.dir, p.h, p.s, p.proj, p.userHome, p.sotd, p.out
	codexHome := filepath.Join(userHome, ".codex")
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		t.Fatal(err)
	}
	codexTrusted(t, codexHome, api.URL, sotd, h, proj)

	sock := filepath.Join(dir, "tmux.sock")
	env := []string{"HOME=" + userHome, "PATH=" + filepath.Join(dir, "bin") + ":" + os.Getenv("PATH"), "TERM=xterm-256color",
		"CODEX_HOME=" + codexHome, "OPENAI_API_KEY=" + codexDummyKey,
		home.EnvName + "=alice", "SOT_COMM_HOME=" + h.Dir, "SOT_SELF_HOST=box"}
	argv := append([]string{"-S", sock, "new-session", "-d", "-x", "160", "-y", "50", "-c", proj, "env", "-i"}, env...)
	if b, err := exec.Command("tmux", append(argv, codex, "--no-daemon")...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, b)
	}
	pane := func() string {
		b, _ := exec.Command("tmux", "-S", sock, "capture-pane", "-p").Output()
		return string(b)
	}
	keys := func(k ...string) {
		if b, err := exec.Command("tmux", append([]string{"-S", sock, "send-keys"}, k...)...).CombinedOutput(); err != nil {
			t.Fatalf("tmux send-keys: %v %s", err, b)
		}
	}
	agent := paneAgent(t, sock)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the session shows:\n%s", pane())
			logs, _ := filepath.Glob(filepath.Join(h.StateDir(), "codex-wait-*.log"))
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				t.Logf("%s:\n%s", l, b)
			}
		}
		exec.Command("tmux", "-S", sock, "kill-server").Run()
		testutil.Eventually(t, 30*time.Second, "Codex's exit", func() bool {
			return ancestry.Still(agent.PID, agent.Start) == ancestry.Gone
		})
		if err := fakeopenai.StopCodexDaemons(codexHome); err != nil {
			t.Error(err)
		}
	})

	testutil.Eventually(t, time.Minute, "Codex's prompt", func() bool {
		p := pane()
		if strings.Contains(p, "Hooks need review") {
			t.Fatalf("Codex asks for review of hooks sotd recorded as trusted:\n%s", p)
		}
		return strings.Contains(p, "› ") && !strings.Contains(p, "loading")
	})
	keys("-l", "hello")
	// Keys that come with the text are a paste to Codex: Enter waits for it.
	testutil.Eventually(t, time.Minute, "the prompt on screen", func() bool { return strings.Contains(pane(), "› hello") })
	keys("Enter")
	waitFiles := filepath.Join(h.StateDir(), "wait-*")
	testutil.Eventually(t, time.Minute, "the first turn's end and its waiter", func() bool {
		m, _ := filepath.Glob(waitFiles)
		return len(m) == 1 && strings.Contains(pane(), "Worked for")
	})

	file := func(msgs ...string) time.Time { return p.file(t, msgs...) }
	notices := func() int {
		n := 0
		for _, r := range api.Requests() {
			if r.Has("user: " + registry.WakeNotice) {
				n++
			}
			if r.Has("hi, alice") {
				t.Fatalf("the model was given the mail itself: %q", r.Texts)
			}
		}
		return n
	}
	wakes := func(want int, msgs ...string) {
		t.Helper()
		filed := file(msgs...)
		testutil.Eventually(t, codexRingWithin, "the notice in a model request", func() bool { return notices() >= want })
		for _, r := range api.Requests() {
			if r.Has("user: "+registry.WakeNotice) && !r.At.Before(filed) {
				t.Logf("filing to the notice in a model request: %v", r.At.Sub(filed).Round(10*time.Millisecond))
				break
			}
		}
	}

	wakes(1, "hi, alice", "and a second line in the same filing")
	still(t, codexSettle, notices, 1, "the same batch, through the turn it started and its turn end")
	keys("-l", "a draft of mine")
	testutil.Eventually(t, time.Minute, "the draft on screen", func() bool { return strings.Contains(pane(), "a draft of mine") })
	wakes(2, "hi, alice, a new batch")
	testutil.Eventually(t, time.Minute, "the draft still in the composer after the notice's turn", func() bool {
		p := pane()
		return strings.Contains(p, "› a draft of mine") && strings.Contains(p, registry.WakeNotice)
	})
	for _, r := range api.Requests() {
		if r.Has("a draft of mine") {
			t.Fatalf("the draft was sent to the model: %q", r.Texts)
		}
	}
	if code := s.Leave(""); code != client.ExitOK {
		t.Fatalf("leave: %d %s", code, out.String())
	}
	file("hi, alice, after the leave")
	still(t, codexSettle, notices, 2, "after the leave")
}

// codexTrusted readies a Codex home at the fake API with proj trusted, and
// sotd's hooks installed (run as sotd), the install recording Codex's trust.
func codexTrusted(t *testing.T, codexHome, api, sotd string, h home.Home, proj string) {
	t.Helper()
	config := fmt.Sprintf(`model = "gpt-5"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
env_key = "OPENAI_API_KEY"

[projects.%q]
trust_level = "trusted"
`, api+"/v1", proj)
	auth := `{"auth_mode":"apikey","OPENAI_API_KEY":"` + codexDummyKey + `"}`
	for name, body := range map[string]string{"auth.json": auth, "config.toml": config} {
		if err := os.WriteFile(filepath.Join(codexHome, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	settings := filepath.Join(codexHome, "hooks.json")
	var out bytes.Buffer
	if code := (hooks.Install{Agent: hooks.Codex, Settings: settings, Sotd: sotd, Home: h, Out: &out, Now: time.Now}).Run(); code != 0 {
		t.Fatalf("hooks install: %d %s", code, out.String())
	}
	ct, err := hooks.ReadCodexTrust(settings)
	if err != nil {
		t.Fatal(err)
	}
	for _, hk := range ct.Hooks {
		if hk.Trust != hooks.Trusted {
			t.Fatalf("%s is %s after the install, which records Codex's trust", hk.Event, hk.Trust)
		}
	}
}
