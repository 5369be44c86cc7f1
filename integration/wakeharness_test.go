//go:build (agents || soak) && !windows

package integration

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/fakeclaude"
	"github.com/sotcomm/sotd/internal/fakeopenai"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wake"
	"github.com/sotcomm/sotd/wire"
)

// What the wake's tests with the real agents share: the fake model APIs as the
// wake is read from them, the rounds of mail that measure it, and a row's
// input box.

// wakeAPI is a fake model API as a wake test reads it. Its model answers the
// notice by running comm-poll.sh (Plan), so each notice the agent gives the
// model is one poll.
type wakeAPI interface {
	// noticeSince is when the first request at or after since carried the
	// notice as the user's prompt; ok false when none has.
	noticeSince(since time.Time) (at time.Time, ok bool)
	// polls are the outputs of the model's comm-poll.sh runs, oldest first.
	polls() []string
}

// claudeAPI is the fake Messages API, its model polling at the notice.
type claudeAPI struct{ *fakeclaude.Server }

func startClaudeAPI(t *testing.T) claudeAPI {
	t.Helper()
	api, err := fakeclaude.Start(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	api.Plan(registry.WakeNotice, "comm-poll.sh")
	return claudeAPI{api}
}

func (a claudeAPI) noticeSince(since time.Time) (time.Time, bool) {
	for _, p := range a.Prompts() {
		if !p.At.Before(since) && strings.Contains(p.Text, registry.WakeNotice) {
			return p.At, true
		}
	}
	return time.Time{}, false
}

func (a claudeAPI) polls() []string { return a.ToolResults() }

// codexAPI is the fake Responses API, its model polling at the notice.
type codexAPI struct{ *fakeopenai.Server }

func startCodexAPI(t *testing.T) codexAPI {
	t.Helper()
	api, err := fakeopenai.Start(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	api.Plan(registry.WakeNotice, "comm-poll.sh")
	return codexAPI{api}
}

// noticeSince finds the first request at or after since that holds more of
// the user's notices than any request before since: Codex resends the whole
// conversation, and may put more after a queued prompt.
func (a codexAPI) noticeSince(since time.Time) (time.Time, bool) {
	before := 0
	for _, r := range a.Requests() {
		n := 0
		for _, text := range r.Texts {
			if strings.HasPrefix(text, "user: ") && strings.Contains(text, registry.WakeNotice) {
				n++
			}
		}
		if r.At.Before(since) {
			before = max(before, n)
		} else if n > before {
			return r.At, true
		}
	}
	return time.Time{}, false
}

func (a codexAPI) polls() []string { return a.Outputs() }

// wakeRounds files rounds batches of mail to handle by the normal client
// route (`sotd send`, as @Tester, who must have joined), each once idle has
// seen the session idle, and returns for each the time from its filing to the
// first model request carrying the notice. The first batch is two lines sent
// one after the other. Each batch wakes the model once: the comm-poll.sh the
// notice makes the model run shows the batch's lines (so the command the
// notice names works in the agent's shell), and no other poll follows within
// settle.
func wakeRounds(t *testing.T, b *box, handle string, api wakeAPI, rounds int, idle func(), settle time.Duration) []time.Duration {
	t.Helper()
	var took []time.Duration
	// Polls before the first batch (a Codex model reads the notice's words in
	// the sot-comm section of AGENTS.md, and polls) are not the wake's.
	base := len(api.polls())
	for i := range rounds {
		idle()
		lines := []string{fmt.Sprintf("mail %d", i)}
		if i == 0 {
			lines = append(lines, "mail 0, same batch")
		}
		start := time.Now()
		var filed time.Time
		for j, l := range lines {
			b.must("Tester", "send", "@"+handle, l)
			if j == 0 {
				filed = filedAt(t, b, handle)
			}
		}
		sent := time.Since(start)
		testutil.Eventually(t, agentStep, fmt.Sprintf("notice %d at the fake API", i+1), func() bool {
			_, ok := api.noticeSince(filed)
			return ok
		})
		at, _ := api.noticeSince(filed)
		took = append(took, at.Sub(filed))
		t.Logf("batch %d: filing (the append) to the notice at the model: %v (the send took %v%s)", i+1, at.Sub(filed).Round(10*time.Millisecond), sent.Round(time.Millisecond), announced(b, filed))
		testutil.Eventually(t, agentStep, "comm-poll.sh, run by the model, showing "+strings.Join(lines, " and "), func() bool {
			polls := api.polls()
			out := strings.Join(polls, "\n")
			if strings.Contains(out, "command not found") {
				t.Fatalf("the command the notice names failed in the agent's shell: %q", out)
			}
			if len(polls) <= base+i {
				return false
			}
			for _, l := range lines {
				if !strings.Contains(polls[base+i], l) {
					return false
				}
			}
			return true
		})
		for end := time.Now().Add(settle); ; time.Sleep(100 * time.Millisecond) {
			if n := len(api.polls()) - base; n != i+1 {
				t.Fatalf("after %d batches the model was woken %d times (polls %q), want once a batch", i+1, n, api.polls()[base:])
			}
			if !time.Now().Before(end) {
				break
			}
		}
	}
	return took
}

// filedAt is when the last line filed to handle's inbox was appended: the
// inbox file's modification time, which the append's write sets. A wake is
// measured from there, not from the start of the sending process, which a
// loaded machine was seen to take over a second to start and run.
func filedAt(t *testing.T, b *box, handle string) time.Time {
	t.Helper()
	h, err := home.At(b.home)
	if err != nil {
		t.Fatal(err)
	}
	path, err := h.HandlePath(home.Inbox, handle)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("the inbox of @%s after a send: %v", handle, err)
	}
	return fi.ModTime()
}

// announced says when a plain session's waiter announced the batch filed
// at filed (its mail tick's modification time), "" for a row, which keeps no
// tick: it splits a doorbell's time into the waiter's and the agent's.
func announced(b *box, filed time.Time) string {
	ticks, _ := filepath.Glob(filepath.Join(b.home, "state", "mail-*.tick"))
	for _, tick := range ticks {
		if fi, err := os.Stat(tick); err == nil && !fi.ModTime().Before(filed) {
			return fmt.Sprintf("; the waiter announced it after %v", fi.ModTime().Sub(filed).Round(10*time.Millisecond))
		}
	}
	return ""
}

// spread is the median and worst of took, and each, for a log line.
func spread(took []time.Duration) (median, worst time.Duration) {
	s := slices.Sorted(slices.Values(took))
	return s[len(s)/2], s[len(s)-1]
}

// agentRow reads and types into one row through the daemon's row ops, a
// connection a call, since the daemon closes one idle for a minute and a
// wake test may read nothing for longer.
type agentRow struct {
	t  *testing.T
	b  *box
	id string
}

func (r agentRow) call(op string, req, res any) error {
	c := dialCLI(r.t, r.b)
	defer c.Close()
	return c.Call(context.Background(), op, req, res)
}

func (r agentRow) pty() wire.PtyScreen {
	var s wire.PtyScreen
	if err := r.call(wire.OpPtyScreen, wire.WorkspaceRef{WorkspaceID: r.id}, &s); err != nil {
		r.t.Fatalf("the screen of %s: %v", r.id, err)
	}
	return s
}

func (r agentRow) screen() string { return strings.Join(r.pty().Lines, "\n") }

// The glyphs that start an agent's input box: Claude Code's ❯ and its
// no-break space, Codex's composer.
const (
	claudeGlyph = "❯\u00a0"
	codexGlyph  = "› "
)

// box is what the agent's input box holds on the cursor's row, after glyph:
// "" when the cursor stands right after the glyph (an empty box, whatever
// placeholder it shows), else the text after the glyph, or "(no box)".
func (r agentRow) box(glyph string) string {
	s := r.pty()
	if s.Cursor.Row < 0 || s.Cursor.Row >= len(s.Lines) {
		return "(no box)"
	}
	rest, ok := strings.CutPrefix(s.Lines[s.Cursor.Row], glyph)
	switch {
	case !ok:
		return "(no box)"
	case s.Cursor.Col == 2:
		return ""
	}
	return strings.TrimRight(rest, " ")
}

// idle waits until the agent sits idle: its box empty, no turn running, and
// its screen unchanged for the wake's stillness time, as a session a person
// left alone shows it. (An agent draws the last lines of a turn for a moment
// after it ends.)
func (r agentRow) idle(glyph string) {
	var last string
	var since time.Time
	testutil.Eventually(r.t, agentStep, "the agent idle at an empty box", func() bool {
		s := r.screen()
		if s != last {
			last, since = s, time.Now()
		}
		return r.box(glyph) == "" && !strings.Contains(s, "esc to interrupt") && time.Since(since) >= wake.StillFor
	})
}

func (r agentRow) input(data string) {
	in := wire.PtyInput{WorkspaceID: r.id, DataB64: base64.StdEncoding.EncodeToString([]byte(data))}
	if err := r.call(wire.OpPtyInput, in, &wire.Done{}); err != nil {
		r.t.Fatal(err)
	}
}

// draftKept types a draft into the row's box, files a line to handle, and
// requires the draft untouched and no notice at the model for two ticks and
// the stillness wait; it returns when the line was filed.
func draftKept(t *testing.T, b *box, r agentRow, glyph, handle string, api wakeAPI) (filed time.Time) {
	t.Helper()
	const draft = "half a thought"
	r.input(draft)
	testutil.Eventually(t, agentStep, "the draft in the agent's box", func() bool { return r.box(glyph) == draft })
	filed = time.Now()
	b.must("Tester", "send", "@"+handle, "mail while a draft waits")
	for held := filed.Add(2*wake.Every + wake.StillFor); time.Now().Before(held); time.Sleep(50 * time.Millisecond) {
		if got := r.box(glyph); got != draft {
			t.Fatalf("the agent's box read %q after mail was filed, want the draft %q untouched", got, draft)
		}
	}
	if at, ok := api.noticeSince(filed); ok {
		t.Fatalf("the fake API got the notice at %v, with a draft in the box", at)
	}
	return filed
}

// holdToBound fails the cell for a figure over brokenBound: a wake that late is
// lost, not slow. The protocol's 4 s is measured, not asserted, by default: a timed
// test on a shared 2-core machine measures its neighbours too (a loaded machine
// took 5-8 s over a session's first prompt inside Claude Code itself). Each figure
// over 4 s is logged; SOTD_WAKE_STRICT=1, on a quiet machine, fails on it.
func holdToBound(t *testing.T, took []time.Duration) {
	t.Helper()
	strict := os.Getenv("SOTD_WAKE_STRICT") == "1"
	for i, d := range took {
		switch {
		case d > brokenBound || (strict && d > wakeBound):
			t.Errorf("batch %d: filing to the notice took %v, want at most %v", i+1, d.Round(10*time.Millisecond), wakeBound)
		case d > wakeBound:
			t.Logf("batch %d: filing to the notice took %v, over the protocol's %v (SOTD_WAKE_STRICT=1 fails on it)", i+1, d.Round(10*time.Millisecond), wakeBound)
		}
	}
}

// brokenBound is how late a wake may come on a loaded machine before the
// matrix calls it lost.
const brokenBound = 20 * time.Second

// rowSettle is how long a soak watches a row for a second notice after a
// batch's poll: a tick and the stillness wait, and a margin.
const rowSettle = wake.Every + wake.StillFor + time.Second

// wakeBound is the protocol's bound from a filing to the notice at the model.
const wakeBound = 4 * time.Second

// codexRowWake runs the real Codex CLI in a tmux row of a real daemon,
// installed as a person would (`sotd hooks install --codex`, its hooks
// trusted), against a fake Responses API whose model answers the wake's notice
// by running comm-poll.sh the way a model calls its shell tool, leaving out
// `login`. Five batches of mail filed to the row's handle each get the notice
// typed into Codex's composer and submitted, once (wakeRounds), and it returns
// the filing to the notice of each. A line typed into the composer as a draft
// is never typed into, for two ticks and the stillness wait after mail is
// filed; once the draft is cleared, the notice goes.
func codexRowWake(t *testing.T, codex string) []time.Duration {
	api := startCodexAPI(t)
	b := newBox(t, "box")
	proj := filepath.Join(filepath.Dir(b.home), "proj")
	codexInstalled(t, b, api.Server, "", nil, proj)
	d := b.serve()
	row := agentRow{t: t, b: b, id: spawnRow(t, b, "Codex-box", "codex", proj, codex)}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the row shows:\n%s\nthe daemon's log:\n%s\nthe call outputs: %q", row.screen(), d.logs, api.Outputs())
		}
	})
	b.must("Tester", "join")
	// Outside the soak, the next round's wait for a still screen is the
	// only watch for a second notice.
	settle := time.Duration(0)
	if testutil.Soak {
		settle = rowSettle
	}
	took := wakeRounds(t, b, "Codex-box", api, 5, func() { row.idle(codexGlyph) }, settle)

	row.idle(codexGlyph)
	filed := draftKept(t, b, row, codexGlyph, "Codex-box", api)
	row.input("\x15") // ctrl+u: the draft cleared, the composer free
	testutil.Eventually(t, brokenBound+agentStep, "the notice once the draft is gone", func() bool {
		_, ok := api.noticeSince(filed)
		return ok
	})
	return took
}
