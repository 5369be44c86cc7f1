//go:build agents && !windows

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/hooks"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
)

// claudeCommandWait bounds one `claude plugin`/`claude mcp` command: each is a
// second or two on an idle machine, and the MCP list starts the server.
const claudeCommandWait = 2 * time.Minute

// TestPluginRealClaude installs sotd's Claude Code plugin from this
// repository with the real Claude Code's own commands, in a fresh HOME with no
// `sotd hooks install`: the marketplace and plugin validate, `claude plugin
// list` shows it enabled, `claude mcp list` shows its sot-comm server
// connected, and sotd doctor takes the plugin for an install. Then the TUI runs with it as TestRewakeRealClaude does with an install: the
// plugin's SessionStart hooks start the waiter and name the re-arm file (the
// waiter re-arms through the plugin's FileChanged hook), and mail wakes the
// model, which runs comm-poll.sh (the plugin's bin/ is on its PATH) and
// answers with sotd send, with no dialog: the plugin's guard allows them
// where an install's permission rules would, and no file was edited by hand.
func TestPluginRealClaude(t *testing.T) {
	for name, claude := range realClaudes(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rewakeRealClaude(t, claude, installPlugin)
		})
	}
}

// installPlugin installs the plugin with claude's own commands, and checks
// what Claude Code and sotd doctor say of it.
func installPlugin(t *testing.T, b *claudeBox, claude string) (afterWake func()) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	env := b.env("alice")
	run := func(name string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), claudeCommandWait)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Env, cmd.Dir = env, b.proj
		out, err := cmd.CombinedOutput()
		if err != nil && name == claude {
			t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
		}
		t.Logf("%s %s:\n%s", filepath.Base(name), strings.Join(args, " "), out)
		return string(out)
	}
	for _, p := range []string{root, filepath.Join(root, hooks.PluginDir)} {
		if out := run(claude, "plugin", "validate", p); !strings.Contains(out, "Validation passed") {
			t.Fatalf("claude plugin validate %s did not pass", p)
		}
	}
	run(claude, "plugin", "marketplace", "add", root)
	run(claude, "plugin", "install", hooks.PluginID)

	var listed []struct {
		ID      string `json:"id"`
		Enabled bool   `json:"enabled"`
	}
	if err := json.Unmarshal([]byte(run(claude, "plugin", "list", "--json")), &listed); err != nil {
		t.Fatalf("claude plugin list --json: %v", err)
	}
	enabled := false
	for _, p := range listed { // the newest also lists its own builtin plugins
		enabled = enabled || p.ID == hooks.PluginID && p.Enabled
	}
	if !enabled {
		t.Fatalf("claude plugin list: %+v, want %s enabled", listed, hooks.PluginID)
	}
	if out := run(claude, "mcp", "list"); !strings.Contains(out, "plugin:sot-comm:sot-comm: sotd mcp - ✔ Connected") {
		t.Fatalf("claude mcp list does not show the plugin's sot-comm server connected")
	}
	if b, _ := os.ReadFile(b.settings()); strings.Contains(string(b), `"hooks"`) {
		t.Fatalf("the plugin's install wrote hooks into settings.json:\n%s", b)
	}

	// doctor, run as the session's sotd with claude on PATH, takes the plugin's
	// hooks, skill, server and guard for sotd's Claude Code setup.
	env = append(env, "PATH="+filepath.Dir(claude)+":"+b.bin+":"+os.Getenv("PATH"))
	doc := run(b.sotd, "doctor")
	for _, want := range []string{
		"claude hooks", "the sot-comm plugin (" + hooks.PluginID + ")",
		"claude skill", "claude mcp", "connects (claude mcp list)",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("sotd doctor does not say %q", want)
		}
	}
	for _, l := range strings.Split(doc, "\n") {
		if strings.Contains(l, "claude hooks") || strings.Contains(l, "claude skill") || strings.Contains(l, "claude mcp") || strings.Contains(l, "claude rules") {
			if !strings.HasPrefix(l, "OK") {
				t.Errorf("sotd doctor: %q, want ok", l)
			}
		}
	}

	// @bob, who the mail is from, is joined to get the answer.
	var out bytes.Buffer
	bob := &client.Session{Home: b.h, Host: "box", Cwd: b.dir, Stdout: &out, Stderr: &out, Now: time.Now}
	if code := bob.Join(client.JoinArgs{Name: "bob"}); code != client.ExitOK {
		t.Fatalf("join bob: %d %s", code, out.String())
	}
	// A daemon files the answer (a client appends only under a hub's lock manager).
	serve := exec.Command(b.sotd, "serve")
	serve.Env = b.env("")
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		serve.Process.Signal(os.Interrupt)
		serve.Wait()
	})
	testutil.Eventually(t, 30*time.Second, "the daemon's socket", func() bool { return testutil.Answers(b.h.Socket("box")) })
	const answer = "pong from alice"
	b.api.Plan(registry.WakeNotice, "comm-poll.sh", "sotd send @bob '"+answer+"'")
	return func() {
		testutil.Eventually(t, turnWithin, "alice's answer in bob's inbox, with no dialog", func() bool {
			inbox, err := b.h.HandlePath(home.Inbox, "bob")
			text, _ := os.ReadFile(inbox)
			return err == nil && strings.Contains(string(text), answer) && len(b.api.ToolResults()) >= 2
		})
		if r := b.api.ToolResults(); len(r) < 2 || !strings.Contains(r[0], "hi, alice") || !strings.Contains(r[1], "filed -> @bob") {
			t.Fatalf("the tool results: %q, want comm-poll.sh's mail and sotd send's filing", r)
		}
	}
}
