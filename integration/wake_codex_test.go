//go:build !windows

package integration

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/fakeopenai"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wake"
	"github.com/sotcomm/sotd/wire"
)

// codexWakeWithin is the bound the wake codexWake measures is held to: the
// protocol's 4 s under the soak tag; without it, looser, so a loaded machine
// running the whole suite with -race does not fail it, while a notice that
// never comes still does. Every time is logged either way.
func codexWakeWithin() time.Duration {
	if soak {
		return 4 * time.Second
	}
	return 2*(wake.Every+wake.StillFor) + 2*time.Second
}

// TestWakeRealCodexRow runs the real Codex CLI in a tmux row of a real daemon,
// installed as a person would (`sotd hooks install --codex`, its hooks
// trusted), against a fake Responses API whose model answers the wake's notice
// by running comm-poll.sh the way a model calls its shell tool, leaving out
// `login`. Five times, mail filed to the row's handle gets the notice typed
// into Codex's composer and submitted: the fake API's next request carries it
// (filing to that request is measured and logged, median and worst); the
// model's comm-poll.sh runs in the row's shell and prints the mail, so the
// command the notice names works there; two lines filed together make one
// batch and one notice. A line typed into the composer as a draft is never
// typed into, for two ticks and the stillness wait after mail is filed; once
// the draft is cleared, the notice goes.
func TestWakeRealCodexRow(t *testing.T) {
	t.Parallel()
	codex := realCodex(t, "the wake of a Codex row")
	api, err := fakeopenai.Start(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	api.Plan(registry.WakeNotice, "comm-poll.sh")

	b := newBox(t, "box")
	proj := filepath.Join(filepath.Dir(b.home), "proj")
	codexInstalled(t, b, api, "", nil, proj)
	d := b.serve()
	row := codexRow{t: t, c: dialRows(t, b), id: spawnRow(t, b, "Codex-box", "codex", proj, codex)}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the row shows:\n%s\nthe daemon's log:\n%s\nthe call outputs: %q", row.screen(), d.logs, api.Outputs())
		}
	})
	b.must("Tester", "join")
	row.idle()

	var took []time.Duration
	for i := range 5 {
		lines := []string{fmt.Sprintf("mail %d", i)}
		if i == 0 {
			lines = append(lines, "mail 0, same batch")
		}
		filed := time.Now()
		for _, l := range lines {
			b.must("Tester", "send", "@Codex-box", l)
		}
		testutil.Eventually(t, codexWakeWithin(), fmt.Sprintf("notice %d at the fake API", i+1), func() bool {
			_, ok := api.Prompted(registry.WakeNotice, filed)
			return ok
		})
		at, _ := api.Prompted(registry.WakeNotice, filed)
		took = append(took, at.Sub(filed))
		testutil.Eventually(t, agentStep, "comm-poll.sh, run by Codex's shell tool, showing "+strings.Join(lines, " and "), func() bool {
			out := strings.Join(api.Outputs(), "\n")
			if strings.Contains(out, "command not found") {
				t.Fatalf("the command the notice names failed in the row's shell: %q", out)
			}
			for _, l := range lines {
				if !strings.Contains(out, l) {
					return false
				}
			}
			return true
		})
		row.idle()
		if n := noticesSent(api); n != i+1 {
			t.Fatalf("after %d batches the model was sent %d notices, want one a batch", i+1, n)
		}
	}
	sorted := slices.Sorted(slices.Values(took))
	t.Logf("filing to the notice at the fake API, 5 batches: median %v, worst %v (all: %v)",
		sorted[2].Round(10*time.Millisecond), sorted[4].Round(10*time.Millisecond), took)

	const draft = "half a thought"
	row.input(draft)
	testutil.Eventually(t, agentStep, "the draft in Codex's composer", func() bool { return row.composer() == draft })
	filed := time.Now()
	b.must("Tester", "send", "@Codex-box", "mail while a draft waits")
	for held := filed.Add(2*wake.Every + wake.StillFor); time.Now().Before(held); time.Sleep(50 * time.Millisecond) {
		if got := row.composer(); got != draft {
			t.Fatalf("Codex's composer read %q after mail was filed, want the draft %q untouched", got, draft)
		}
	}
	if at, ok := api.Prompted(registry.WakeNotice, filed); ok {
		t.Fatalf("the fake API got the notice at %v, with a draft in the composer", at)
	}
	row.input("\x15") // ctrl+u: the draft cleared, the composer free
	testutil.Eventually(t, codexWakeWithin()+agentStep, "the notice once the draft is gone", func() bool {
		_, ok := api.Prompted(registry.WakeNotice, filed)
		return ok
	})
}

// codexRow reads and types into one row through the daemon's row ops.
type codexRow struct {
	t  *testing.T
	c  *wire.Client
	id string
}

func (r codexRow) pty() wire.PtyScreen {
	var s wire.PtyScreen
	if err := r.c.Call(context.Background(), wire.OpPtyScreen, wire.WorkspaceRef{WorkspaceID: r.id}, &s); err != nil {
		r.t.Fatalf("the screen of %s: %v", r.id, err)
	}
	return s
}

func (r codexRow) screen() string { return strings.Join(r.pty().Lines, "\n") }

// composer is what Codex's composer holds on the cursor's row: "" when the
// cursor stands right after "› " (an empty composer, before its placeholder),
// else the text after "› ", or "(no composer)".
func (r codexRow) composer() string {
	s := r.pty()
	if s.Cursor.Row < 0 || s.Cursor.Row >= len(s.Lines) {
		return "(no composer)"
	}
	rest, ok := strings.CutPrefix(s.Lines[s.Cursor.Row], "› ")
	switch {
	case !ok:
		return "(no composer)"
	case s.Cursor.Col == 2:
		return ""
	}
	return strings.TrimRight(rest, " ")
}

// idle waits until Codex sits idle: its composer empty, no turn running, and
// its screen unchanged for the wake's stillness time, as a session a person
// left alone shows it. (Codex draws the last lines of a turn for a moment
// after it ends.)
func (r codexRow) idle() {
	var last string
	var since time.Time
	testutil.Eventually(r.t, agentStep, "Codex idle at an empty composer", func() bool {
		s := r.screen()
		if s != last {
			last, since = s, time.Now()
		}
		return r.composer() == "" && !strings.Contains(s, "esc to interrupt") && time.Since(since) >= wake.StillFor
	})
}

func (r codexRow) input(data string) {
	in := wire.PtyInput{WorkspaceID: r.id, DataB64: base64.StdEncoding.EncodeToString([]byte(data))}
	if err := r.c.Call(context.Background(), wire.OpPtyInput, in, &wire.Done{}); err != nil {
		r.t.Fatal(err)
	}
}

// noticesSent is how many times the notice stands as a user's prompt in the
// longest conversation the fake API was sent: one for each notice submitted.
func noticesSent(api *fakeopenai.Server) int {
	most := 0
	for _, r := range api.Requests() {
		n := 0
		for _, t := range r.Texts {
			if t == "user: "+registry.WakeNotice {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}
