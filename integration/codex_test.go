//go:build !windows

package integration

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/hooks"
	"github.com/sotcomm/sotd/internal/fakeopenai"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// agentStep bounds each step of a real agent in a row (its start, a model
// turn, its hooks): a 15 s bound failed under the whole suite with -race on 2
// cores, though the test passed alone. Each wait ends as soon as the step is
// seen, so the bound costs a passing run nothing.
const agentStep = time.Minute

// TestCodexRowsRunTheirOwnHooks runs the real Codex CLI (npm @openai/codex) in
// two rows of one daemon, sharing one CODEX_HOME, against a fake Responses API
// on 127.0.0.1. sotd's hooks are installed with `sotd hooks install --codex`
// and trusted as Codex records trust (the hash sotd computes), and `sotd spawn`
// runs each codex with --no-daemon: so every hook is a child of its own row's
// codex and acts as that row's handle. Mail waits for row B only: B's Stop hook
// holds its turn with a block that names @CodexB-box, and Codex goes on with
// that instruction; A's turn ends unheld. Each row's prompt and Stop hooks mark
// its own handle's turn done. No shared app-server is started. A third row
// whose codex a shell starts (so sotd cannot add --no-daemon) does start one:
// its hooks say so on its screen and mark nothing, and doctor names the server.
func TestCodexRowsRunTheirOwnHooks(t *testing.T) {
	t.Parallel()
	codex := realCodex(t, "sotd's hooks")
	started := time.Now()
	api, err := fakeopenai.Start(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })

	b := newBox(t, "box")
	scratch := filepath.Dir(b.home)
	projA, projB := filepath.Join(scratch, "a"), filepath.Join(scratch, "b")
	codexHome := codexInstalled(t, b, api, "", nil, projA, projB)
	b.serve()
	if out := b.must("", "doctor"); !strings.Contains(out, "codex hooks    7 sotd hooks in") || !strings.Contains(out, "each trusted") {
		t.Fatalf("doctor does not call the hooks trusted:\n%s", out)
	}
	c := dialRows(t, b)
	spawn := func(handle, dir string, argv ...string) string { return spawnRow(t, b, handle, "codex", dir, argv...) }
	rowA, rowB := spawn("CodexA-box", projA, codex), spawn("CodexB-box", projB, codex)
	screen := func(id string) string {
		var s wire.PtyScreen
		if err := c.Call(context.Background(), wire.OpPtyScreen, wire.WorkspaceRef{WorkspaceID: id}, &s); err != nil {
			t.Fatalf("the screen of %s: %v", id, err)
		}
		return strings.Join(s.Lines, "\n")
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("row A shows:\n%s\nrow B shows:\n%s", screen(rowA), screen(rowB))
			for i, r := range api.Requests() {
				t.Logf("request %d: %q", i, r.Texts[max(0, len(r.Texts)-3):])
			}
		}
	})
	waitPrompt := func(id string) {
		testutil.Eventually(t, agentStep, "Codex's prompt in "+id+", with no hook waiting for review", func() bool {
			s := screen(id)
			if strings.Contains(s, "Hooks need review") {
				t.Fatalf("Codex asks for review of hooks sotd recorded as trusted:\n%s", s)
			}
			return strings.Contains(s, "› ") && !strings.Contains(s, "loading")
		})
	}
	waitPrompt(rowA)
	waitPrompt(rowB)

	b.must("Tester", "join")
	b.must("Tester", "send", "@CodexB-box", "are you there?")
	typeInto := func(id, text string) {
		input := func(data string) {
			in := wire.PtyInput{WorkspaceID: id, DataB64: base64.StdEncoding.EncodeToString([]byte(data))}
			if err := c.Call(context.Background(), wire.OpPtyInput, in, &wire.Done{}); err != nil {
				t.Fatal(err)
			}
		}
		input(text)
		testutil.Eventually(t, agentStep, "the prompt typed into "+id, func() bool { return strings.Contains(screen(id), text) })
		input("\r")
	}
	typeInto(rowA, "ping from A")
	typeInto(rowB, "ping from B")

	held := "[sot-comm] @CodexB-box has 1 unread message"
	testutil.Eventually(t, agentStep, "row B's turn held by its Stop hook, and Codex going on with the block's reason", func() bool {
		for _, r := range api.Requests() {
			if r.Has("ping from B") && r.Has(held) {
				return true
			}
		}
		return false
	})
	h, err := home.At(b.home)
	if err != nil {
		t.Fatal(err)
	}
	entry := func(handle string) *registry.Entry {
		e, ok, err := registry.Lookup(h, handle)
		if err != nil || !ok {
			t.Fatalf("@%s in the registry: %v %v", handle, ok, err)
		}
		return e
	}
	// A user's turn that ends unheld is done: the prompt hook marked the floor
	// the user's and the Stop hook ended the turn, both acting as the row's own
	// handle.
	for _, handle := range []string{"CodexA-box", "CodexB-box"} {
		testutil.Eventually(t, agentStep, "@"+handle+"'s own prompt and Stop hooks marking its turn done", func() bool {
			return entry(handle).Done
		})
	}
	for _, r := range api.Requests() {
		if r.Has("ping from A") && r.Has("<hook_prompt") {
			t.Errorf("row A's turn was held by a hook, want it to end: no mail waits for @CodexA-box: %q", r.Texts[len(r.Texts)-1])
		}
	}
	if _, err := os.Stat(filepath.Join(codexHome, "app-server-daemon", "daemon.pid")); err == nil {
		t.Errorf("a shared Codex app-server was started for %s; the rows run codex --no-daemon", codexHome)
	}

	// A codex that sotd cannot give --no-daemon (a shell runs it) hands its
	// session to the shared app-server: its hooks say so, on its screen, and act
	// as no handle; doctor names the server.
	rowC := spawn("CodexC-box", projA, "sh", "-c", `exec "$0"`, codex)
	waitPrompt(rowC)
	typeInto(rowC, "ping from C")
	testutil.Eventually(t, agentStep, "row C's hooks saying they run under the shared app-server", func() bool {
		return strings.Count(screen(rowC), "runs under Codex's shared app-server") >= 2
	})
	if e := entry("CodexC-box"); e.Done || e.Floor != "" {
		t.Errorf("@CodexC-box's turn was marked (done %v, floor %q) by hooks under the shared server", e.Done, e.Floor)
	}
	if out := b.run("", "", "doctor").stdout; !strings.Contains(out, "WARN  codex server   Codex's shared app-server runs for "+codexHome) {
		t.Errorf("doctor does not name the shared app-server:\n%s", out)
	}
	t.Logf("three Codex rows, hooks installed and trusted, turns held and ended, the shared server told: %v", time.Since(started).Round(10*time.Millisecond))
}

// spawnRow starts a row of the box's daemon that runs argv as agent in dir,
// acting as handle, and returns its id; the test's end ends it, since rows
// outlive their daemon (tmux keeps them).
func spawnRow(t *testing.T, b *box, handle, agent, dir string, argv ...string) string {
	t.Helper()
	r := b.run("", "", append([]string{"spawn", "--handle", handle, "--agent", agent, "--cwd", dir, "--"}, argv...)...)
	if r.code != 0 {
		t.Fatalf("spawn %s: exit %d: %s%s", handle, r.code, r.stdout, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	t.Cleanup(func() { b.run("", "", "despawn", id) })
	return id
}

// codexInstalled readies a box for real Codex rows in the given project
// folders (made here, trusted): a Codex home at the API, with config beside the
// provider's, and sotd's hooks installed (`sotd hooks install --codex` with
// more args), which records Codex's trust in them. It returns the
// Codex home; the test's end stops any shared app-server a codex started
// there.
func codexInstalled(t *testing.T, b *box, api *fakeopenai.Server, config string, args []string, projects ...string) string {
	t.Helper()
	scratch := filepath.Dir(b.home)
	codexHome := filepath.Join(scratch, ".codex")
	for _, d := range append([]string{codexHome}, projects...) {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if err := fakeopenai.StopCodexDaemons(codexHome); err != nil {
			t.Error(err)
		}
	})
	const key = "sk-sotd-codex-test-0000000000000000"
	config = api.CodexConfig() + config
	for _, p := range projects {
		config += fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n", p)
	}
	files := map[string]string{"auth.json": `{"auth_mode":"apikey","OPENAI_API_KEY":"` + key + `"}`, "config.toml": config}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(codexHome, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	b.extra = []string{
		"PATH=" + filepath.Dir(sotdBin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + scratch, "CODEX_HOME=" + codexHome, "OPENAI_API_KEY=" + key,
	}

	b.must("", append([]string{"hooks", "install", "--codex"}, args...)...)
	ct, err := hooks.ReadCodexTrust(filepath.Join(codexHome, "hooks.json"))
	if err != nil || len(ct.Hooks) != 7 {
		t.Fatalf("the installed hooks: %+v, %v", ct.Hooks, err)
	}
	for _, h := range ct.Hooks {
		if !strings.HasPrefix(h.Command, "sotd hook ") {
			t.Fatalf("%s's command %q does not run sotd by name", h.Event, h.Command)
		}
		if h.Trust != hooks.Trusted {
			t.Fatalf("%s is %s after the install, which records Codex's trust", h.Event, h.Trust)
		}
	}
	return codexHome
}

// dialRows is a CLI connection to the box's daemon, for the row ops; the
// daemon closes it after a minute without a call.
func dialRows(t *testing.T, b *box) *wire.Client {
	t.Helper()
	c := dialCLI(t, b)
	t.Cleanup(func() { c.Close() })
	return c
}

// dialCLI is a new CLI connection to the box's daemon; the caller closes it.
func dialCLI(t *testing.T, b *box) *wire.Client {
	t.Helper()
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := wire.Dial(ctx, b.socket(), wire.Hello{Role: wire.RoleCLI, Host: b.host, OSUser: u.Username, Protocol: wire.Protocol})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// realCodex is the real Codex on PATH, for a test that runs what as its rows in
// tmux: skipped without codex or tmux, failed without codex under CI, whose
// .ci/run installs it.
func realCodex(t *testing.T, what string) string {
	t.Helper()
	codex, err := exec.LookPath("codex")
	switch {
	case err == nil:
	case os.Getenv("CI") != "":
		t.Fatal("codex is not on PATH and CI is set: .ci/run must `npm install -g @openai/codex`")
	default:
		t.Skipf("codex is not on PATH: `npm install -g @openai/codex` to run %s under the real Codex", what)
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not on PATH: the rows would run on the built-in screen, which this test does not read")
	}
	return codex
}
