//go:build (agents || soak) && !windows

package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/hooks"
	"github.com/sotcomm/sotd/internal/fakeopenai"
	"github.com/sotcomm/sotd/wire"
)

// What the tests with real agents in rows share (the agents-tagged ones and
// the soaks): the bound of an agent's step, rows, Codex's home, the CLI's
// connection to a box's daemon.

// agentStep bounds each step of a real agent in a row (its start, a model
// turn, its hooks): a 15 s bound failed under the whole suite with -race on 2
// cores, though the test passed alone. Each wait ends as soon as the step is
// seen, so the bound costs a passing run nothing.
const agentStep = time.Minute

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
