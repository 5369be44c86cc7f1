//go:build agents && !windows

package integration

import (
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/fakeopenai"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

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
