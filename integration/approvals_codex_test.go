//go:build agents && !windows

package integration

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/fakeopenai"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/wire"
)

// TestCodexMailNeedsNoApproval runs the real
// Codex in a row, in its default mode for a trusted project (commands in its
// sandbox), from a Codex home where `sotd hooks install --codex` was done and
// its hooks trusted. A prompt has the fake Responses API run sotd poll, then
// sotd send to the sender. The sandbox keeps the comm home read-only (here by
// config, since the test's lies under /tmp, which Codex otherwise lets a
// command write): with the install's rules the mail verbs run outside it with
// no approval, the mail is read and the reply filed; with --no-permissions
// sotd poll fails in the sandbox (its pid namespace hides the row sotd names
// its caller by, and the comm home is read-only), where a real model would ask
// a person to run it outside the sandbox.
func TestCodexMailNeedsNoApproval(t *testing.T) {
	t.Parallel()
	codex := realCodex(t, "sotd's mail")
	for _, perms := range []bool{true, false} {
		name := "rules"
		if !perms {
			name = "no-permissions"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			codexMail(t, codex, perms)
		})
	}
}

func codexMail(t *testing.T, codex string, perms bool) {
	started := time.Now()
	api, err := fakeopenai.Start(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	const prompt, reply = "please read your mail", "pong from the codex row"
	api.Plan(prompt, "sotd poll", "sotd send @Tester '"+reply+"'")

	b := newBox(t, "box")
	proj := filepath.Join(filepath.Dir(b.home), "proj")
	var args []string
	if !perms {
		args = []string{"--no-permissions"}
	}
	const sandbox = "\n[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"
	codexInstalled(t, b, api, sandbox, args, proj)
	b.serve()
	c := dialRows(t, b)
	id := spawnRow(t, b, "Codex-box", "codex", proj, codex)
	screen := func() string {
		var s wire.PtyScreen
		if err := c.Call(context.Background(), wire.OpPtyScreen, wire.WorkspaceRef{WorkspaceID: id}, &s); err != nil {
			return fmt.Sprintf("(the row's screen: %v)", err)
		}
		return strings.Join(s.Lines, "\n")
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the row shows:\n%s\nthe call outputs: %q", screen(), api.Outputs())
		}
	})
	input := func(data string) {
		in := wire.PtyInput{WorkspaceID: id, DataB64: base64.StdEncoding.EncodeToString([]byte(data))}
		if err := c.Call(context.Background(), wire.OpPtyInput, in, &wire.Done{}); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, agentStep, "Codex's prompt, with no hook waiting for review", func() bool {
		s := screen()
		if strings.Contains(s, "Hooks need review") {
			t.Fatalf("Codex asks for review of hooks sotd recorded as trusted:\n%s", s)
		}
		return strings.Contains(s, "› ") && !strings.Contains(s, "loading")
	})

	b.must("Tester", "join")
	b.must("Tester", "send", "@Codex-box", "are you there?")
	input(prompt)
	testutil.Eventually(t, agentStep, "the prompt typed into the row", func() bool { return strings.Contains(screen(), prompt) })
	input("\r")
	outputs := func() string { return strings.Join(api.Outputs(), "\n") }
	if !perms {
		// In the sandbox's own pid namespace sotd cannot trace the row
		// that runs it, and the comm home is read-only: poll fails.
		testutil.Eventually(t, agentStep, "sotd poll failing in Codex's sandbox (no rule runs it outside)", func() bool {
			return strings.Contains(outputs(), "Process exited with code 1")
		})
		if strings.Contains(outputs(), "are you there?") {
			t.Errorf("sotd poll showed the mail inside Codex's sandbox: %q", outputs())
		}
		return
	}
	testutil.Eventually(t, agentStep, "the row's reply, filed to @Tester", func() bool {
		return strings.Contains(b.must("Tester", "poll"), reply)
	})
	testutil.Eventually(t, agentStep, "sotd poll's mail and sotd send's filed line in the call outputs", func() bool {
		return strings.Contains(outputs(), "are you there?") && strings.Contains(outputs(), "filed -> @Tester")
	})
	if s := screen(); strings.Contains(s, "Would you like to run") {
		t.Errorf("Codex asks before a mail command:\n%s", s)
	}
	t.Logf("%s: install, spawn, mail polled and answered with no approval: %v", codex, time.Since(started).Round(10*time.Millisecond))
}
