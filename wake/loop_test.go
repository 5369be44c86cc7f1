package wake

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"

	"go.uber.org/goleak"

	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
)

var t0 = time.Date(2026, 6, 15, 19, 0, 0, 0, time.UTC)

// rig runs a Loop over fake rows on an injected clock, stepping it when Run
// would: at each tick, and sooner when a row asks for another look.
type rig struct {
	t        *testing.T
	rows     *fakeRows
	in       *inboxes
	clk      *testutil.Clock
	loop     *Loop
	log      *bytes.Buffer
	nextTick time.Time
	soon     time.Time // when a row asked for another look; zero for none
}

func newRig(t *testing.T, rs ...*fakeRow) *rig {
	r := &rig{t: t, rows: &fakeRows{}, in: newInboxes(), clk: testutil.NewClock(t0), log: &bytes.Buffer{}}
	for _, f := range rs {
		r.rows.add(f)
	}
	r.loop = &Loop{Rows: r.rows, Unread: r.in.Unread, Entry: r.in.Entry, Now: r.clk.Now,
		Log: slog.New(slog.NewTextHandler(r.log, nil))}
	return r
}

// begin is Run's start: the restart look is owed, and the first pass runs now.
func (r *rig) begin() *rig {
	r.loop.start()
	r.nextTick = r.clk.Now().Add(Every)
	r.step()
	return r
}

// settled is begin and one idle tick: the restart look is over, and what it saw
// of each screen is forgotten, since the idle tick does not look.
func (r *rig) settled() *rig {
	r.begin().run(Every)
	return r
}

// run moves the clock on by d, stepping the loop as Run would on the way.
func (r *rig) run(d time.Duration) {
	end := r.clk.Now().Add(d)
	for {
		next := r.nextTick
		if !r.soon.IsZero() && r.soon.Before(next) {
			next = r.soon
		}
		if next.After(end) {
			r.clk.Add(end.Sub(r.clk.Now()))
			return
		}
		r.clk.Add(next.Sub(r.clk.Now()))
		if next.Equal(r.nextTick) {
			r.nextTick = r.nextTick.Add(Every)
		}
		r.step()
	}
}

// step is one pass, and the look it asks for as Run's timer would time it:
// from the pass, however the test then moves the clock.
func (r *rig) step() {
	r.soon = time.Time{}
	if d := r.loop.step(); d > 0 {
		r.soon = r.clk.Now().Add(d)
	}
}

// claudeRow is a Ready Claude row with a handle and an empty prompt.
func claudeRow(id, handle string) *fakeRow {
	return &fakeRow{row: Row{ID: id, Handle: handle, Agent: rows.Claude, Ready: true}}
}

// codexRow is a Ready Codex row with a handle and an empty composer.
func codexRow(id, handle string) *fakeRow {
	return &fakeRow{row: Row{ID: id, Handle: handle, Agent: rows.Codex, Ready: true}}
}

// typedRows are the rows the wake types into, by agent.
var typedRows = []struct {
	agent string
	row   func(id, handle string) *fakeRow
}{{"claude", claudeRow}, {"codex", codexRow}}

const sent = registry.WakeNotice + "|\r"

func TestLoopTypesTheNoticeThenEnter(t *testing.T) {
	for _, a := range typedRows {
		t.Run(a.agent, func(t *testing.T) { typesTheNoticeThenEnter(t, a.row("ws-a", "alice")) })
	}
}

func typesTheNoticeThenEnter(t *testing.T, f *fakeRow) {
	r := newRig(t, f).settled()
	r.in.mail("alice", 1)
	r.run(Every) // the tick that counts the mail: a first look
	if f.wrote() != "" || f.looks != 2 {
		t.Fatalf("after the first look: wrote %q, %d looks; want nothing typed yet, the restart look and 1 more", f.wrote(), f.looks)
	}
	r.run(StillFor)
	if f.wrote() != registry.WakeNotice {
		t.Fatalf("once still for %v: wrote %q, want the notice alone", StillFor, f.wrote())
	}
	r.run(EchoWait)
	if f.wrote() != sent {
		t.Fatalf("at the look after the echo: wrote %q, want the notice, then Enter as its own write", f.wrote())
	}
	if got := f.history[len(f.history)-1]; got != "> "+registry.WakeNotice {
		t.Errorf("the agent got %q, want the notice", got)
	}
	r.run(5 * time.Minute) // still unread, same batch
	if f.wrote() != sent {
		t.Errorf("one batch: wrote %q, want one notice", f.wrote())
	}
}

// A screen that says when it last changed (the PTY backend's) is believed: a
// screen still for StillFor before the mail came gets the notice at its first
// look, and a change undone between two looks, which the looks alone cannot
// see, holds the notice back until StillFor after it.
func TestLoopReadsTheScreensChangeTimes(t *testing.T) {
	for _, a := range typedRows {
		t.Run(a.agent+"/still before the mail", func(t *testing.T) {
			f := a.row("ws-a", "alice")
			r := newRig(t, f).settled()
			f.changed = r.clk.Now().Add(Every - StillFor)
			r.in.mail("alice", 1)
			r.run(Every) // the tick that counts the mail: a first look
			if f.wrote() != registry.WakeNotice {
				t.Fatalf("at the first look at a screen still for %v: wrote %q, want the notice", StillFor, f.wrote())
			}
		})
		t.Run(a.agent+"/a change undone between looks", func(t *testing.T) {
			f := a.row("ws-a", "alice")
			r := newRig(t, f).settled()
			f.changed = r.clk.Now().Add(Every)
			r.in.mail("alice", 1)
			r.run(Every) // a first look at a screen that changed just then
			r.run(StillFor / 2)
			f.changed = r.clk.Now() // drawn and drawn back before the next look
			r.run(StillFor / 2)
			if f.wrote() != "" {
				t.Fatalf("at the look StillFor after the first, the screen changed %v before: wrote %q, want nothing yet", StillFor/2, f.wrote())
			}
			r.run(StillFor / 2)
			if f.wrote() != registry.WakeNotice {
				t.Fatalf("StillFor after the change: wrote %q, want the notice", f.wrote())
			}
		})
	}
}

func TestLoopHoldsBack(t *testing.T) {
	tests := []struct {
		name  string
		row   func() *fakeRow
		setup func(*rig)
		looks bool // whether the row's screen is read at all
	}{
		{"the screen keeps changing", func() *fakeRow { f := claudeRow("ws-a", "alice"); f.busy = true; return f }, nil, true},
		{"a draft in the box", func() *fakeRow { f := claudeRow("ws-a", "alice"); f.box = "fix the build"; return f }, nil, true},
		{"the notice plus a draft", func() *fakeRow { f := claudeRow("ws-a", "alice"); f.box = registry.WakeNotice + " and more"; return f }, nil, true},
		{"a row of another agent", func() *fakeRow { f := claudeRow("ws-a", "alice"); f.row.Agent = rows.Other; return f }, nil, false},
		{"a Codex row whose status line ticks", func() *fakeRow { f := codexRow("ws-a", "alice"); f.busy = true; return f }, nil, true},
		{"a draft in Codex's composer", func() *fakeRow { f := codexRow("ws-a", "alice"); f.box = "fix the build"; return f }, nil, true},
		{"a Codex row on Windows", func() *fakeRow { return codexRow("ws-a", "alice") }, func(r *rig) { r.loop.Windows = true }, true},
		{"a row not Ready", func() *fakeRow { f := claudeRow("ws-a", "alice"); f.row.Ready = false; return f }, nil, false},
		{"a row with no handle", func() *fakeRow { return claudeRow("ws-a", "") }, nil, false}, // only the restart look
		{"a busy inbox", func() *fakeRow { return claudeRow("ws-a", "alice") }, func(r *rig) { r.in.busy["alice"] = true }, false},
		{"an inbox that cannot be read", func() *fakeRow { return claudeRow("ws-a", "alice") }, func(r *rig) { r.in.fail["alice"] = errors.New("disk on fire") }, false},
		{"a fresh stop_at", func() *fakeRow { return claudeRow("ws-a", "alice") }, func(r *rig) {
			r.in.entries["alice"] = &registry.Entry{StopAt: registry.Stamp(t0.Add(50 * time.Second))}
		}, false},
		{"an unreadable registry", func() *fakeRow { return claudeRow("ws-a", "alice") }, func(r *rig) { r.in.regErr = errors.New("registry.json is not JSON") }, false},
		{"a '>' glyph off Windows", func() *fakeRow { f := claudeRow("ws-a", "alice"); f.glyph = ">"; return f }, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.row()
			r := newRig(t, f)
			if tc.setup != nil {
				tc.setup(r)
			}
			r.begin()
			looksAtStart := f.looks
			r.in.mail("alice", 2)
			r.run(time.Minute)
			if f.wrote() != "" {
				t.Errorf("wrote %q, want nothing", f.wrote())
			}
			if looked := f.looks > looksAtStart; looked != tc.looks {
				t.Errorf("the screen was read %d times after the start, want read: %v", f.looks-looksAtStart, tc.looks)
			}
		})
	}
}

func TestLoopTypesOnceTheHoldEnds(t *testing.T) {
	tests := []struct {
		name    string
		row     *fakeRow
		hold    func(*rig, *fakeRow)
		release func(*rig, *fakeRow)
	}{
		{"the screen stops changing", claudeRow("ws-a", "alice"),
			func(r *rig, f *fakeRow) { f.busy = true }, func(r *rig, f *fakeRow) { f.busy = false }},
		{"the draft is cleared", claudeRow("ws-a", "alice"),
			func(r *rig, f *fakeRow) { f.box = "half a thought" }, func(r *rig, f *fakeRow) { f.box = "" }},
		{"the inbox is no longer busy", claudeRow("ws-a", "alice"),
			func(r *rig, f *fakeRow) { r.in.busy["alice"] = true }, func(r *rig, f *fakeRow) { r.in.busy["alice"] = false }},
		{"the stop_at mark goes stale", claudeRow("ws-a", "alice"),
			func(r *rig, f *fakeRow) {
				r.in.entries["alice"] = &registry.Entry{StopAt: registry.Stamp(r.clk.Now())}
			}, func(r *rig, f *fakeRow) { r.clk.Add(registry.StopHookFor - 30*time.Second) }},
		{"the registry reads again", claudeRow("ws-a", "alice"),
			func(r *rig, f *fakeRow) { r.in.regErr = errors.New("not JSON") }, func(r *rig, f *fakeRow) { r.in.regErr = nil }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, tc.row)
			f := tc.row
			r.mutate(func() { tc.hold(r, f) })
			r.begin()
			r.in.mail("alice", 1)
			r.run(30 * time.Second)
			if f.wrote() != "" {
				t.Fatalf("held: wrote %q, want nothing", f.wrote())
			}
			r.mutate(func() { tc.release(r, f) })
			r.run(Every + StillFor + EchoWait)
			if f.wrote() != sent {
				t.Errorf("released: wrote %q, want the notice and Enter within %v", f.wrote(), Every+StillFor+EchoWait)
			}
		})
	}
}

// mutate changes the fakes under their locks.
func (r *rig) mutate(fn func()) {
	r.rows.mu.Lock()
	r.in.mu.Lock()
	defer r.rows.mu.Unlock()
	defer r.in.mu.Unlock()
	fn()
}

func TestLoopRepeatsOnceAfterTenMinutes(t *testing.T) {
	f := claudeRow("ws-a", "alice")
	r := newRig(t, f).begin()
	r.in.mail("alice", 1)
	r.run(5 * time.Second)
	if f.wrote() != sent {
		t.Fatalf("first notice: wrote %q", f.wrote())
	}
	r.run(RepeatAfter - 5*time.Second)
	if f.wrote() != sent {
		t.Fatalf("before ten minutes: wrote %q, want the first notice only", f.wrote())
	}
	r.run(10 * time.Second)
	if want := sent + "|" + sent; f.wrote() != want {
		t.Fatalf("ten minutes unread: wrote %q, want one more notice", f.wrote())
	}
	r.run(time.Hour)
	if want := sent + "|" + sent; f.wrote() != want {
		t.Fatalf("an hour more unread: wrote %q, want no third notice", f.wrote())
	}
	r.in.mail("alice", 1)
	r.run(5 * time.Second)
	if want := sent + "|" + sent + "|" + sent; f.wrote() != want {
		t.Fatalf("a new batch: wrote %q, want its own notice", f.wrote())
	}
}

func TestLoopNoRepeatWhenRead(t *testing.T) {
	f := claudeRow("ws-a", "alice")
	r := newRig(t, f).begin()
	r.in.mail("alice", 1)
	r.run(5 * time.Second)
	r.in.read("alice")
	r.run(RepeatAfter + time.Minute)
	if f.wrote() != sent {
		t.Errorf("read mail: wrote %q, want the first notice only", f.wrote())
	}
}

func TestLoopCompletesATypedNotice(t *testing.T) {
	tests := []struct {
		name  string
		fault func(*fakeRow)
		after time.Duration // by when the Enter has gone
	}{
		{"the Enter write failed", func(f *fakeRow) { f.failIn = 1 }, Every},
		{"the echo was slow", func(f *fakeRow) { f.noEcho = 3 }, EchoFor},
		{"the echo came after EchoFor", func(f *fakeRow) { f.noEcho = int(EchoFor/EchoWait) + 3 }, 10 * time.Second},
		{"the row turned busy", func(f *fakeRow) { f.busy = true }, time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := claudeRow("ws-a", "alice")
			r := newRig(t, f).settled()
			r.in.mail("alice", 1)
			r.run(Every + StillFor)
			if f.wrote() != registry.WakeNotice {
				t.Fatalf("wrote %q, want the notice", f.wrote())
			}
			r.mutate(func() { tc.fault(f) })
			r.run(tc.after)
			if f.wrote() != sent {
				t.Fatalf("wrote %q, want the notice completed by Enter alone", f.wrote())
			}
			r.run(RepeatAfter / 2)
			if f.wrote() != sent {
				t.Errorf("wrote %q later, want nothing more", f.wrote())
			}
		})
	}
}

func TestLoopLeavesAnEditedNotice(t *testing.T) {
	f := claudeRow("ws-a", "alice")
	r := newRig(t, f).settled()
	r.in.mail("alice", 1)
	f.noEcho = 1 << 30 // nothing shows; then a person's edit does
	r.run(Every + StillFor)
	r.mutate(func() { f.noEcho, f.pending, f.box = 0, "", registry.WakeNotice+" but first" })
	r.run(RepeatAfter + time.Minute)
	if f.wrote() != registry.WakeNotice {
		t.Errorf("wrote %q, want the notice and no Enter into the edited box", f.wrote())
	}
	r.in.read("alice")
	r.run(Every)
	looks := f.looks
	r.run(time.Minute)
	if f.looks != looks {
		t.Errorf("%d more looks at a row that owes nothing and has no new mail", f.looks-looks)
	}
}

func TestLoopRestartSendsEnterAlone(t *testing.T) {
	holds := claudeRow("ws-holds", "alice")
	holds.box = registry.WakeNotice
	read := claudeRow("ws-read", "bob") // its mail was read since: Enter all the same
	read.box = registry.WakeNotice
	draft := claudeRow("ws-draft", "carol")
	draft.box = registry.WakeNotice + "!"
	codex := codexRow("ws-codex", "dave") // Codex's composer holds the notice
	codex.box = registry.WakeNotice
	other := claudeRow("ws-other", "gus") // a row no agent's prompt is known for
	other.box, other.row.Agent = registry.WakeNotice, rows.Other
	later := claudeRow("ws-later", "erin") // Starting at the restart, Ready after
	later.box, later.row.Ready = registry.WakeNotice, false
	held := claudeRow("ws-held", "fay") // its Stop hook runs at the restart
	held.box = registry.WakeNotice
	r := newRig(t, holds, read, draft, codex, other, later, held)
	r.in.entries["fay"] = &registry.Entry{StopAt: registry.Stamp(t0)}
	r.in.mail("alice", 1)
	r.begin()
	for _, f := range []*fakeRow{holds, read, codex} {
		if f.wrote() != "\r" {
			t.Errorf("%s: wrote %q at the restart, want Enter alone", f.row.ID, f.wrote())
		}
	}
	r.mutate(func() { later.row.Ready = true })
	r.run(Every)
	if later.wrote() != "\r" {
		t.Errorf("a row Ready after the restart: wrote %q, want Enter alone", later.wrote())
	}
	r.run(registry.StopHookFor)
	if held.wrote() != "\r" {
		t.Errorf("a row whose stop_at went stale: wrote %q, want Enter alone", held.wrote())
	}
	for _, f := range []*fakeRow{draft, other} {
		if f.wrote() != "" {
			t.Errorf("%s: wrote %q, want nothing", f.row.ID, f.wrote())
		}
	}
	// The restart look is once: a box that holds the notice later is not ours.
	r.mutate(func() { read.box = registry.WakeNotice })
	r.run(time.Minute)
	if read.wrote() != "\r" {
		t.Errorf("a second notice this run did not type: wrote %q, want the one Enter", read.wrote())
	}
	// alice's mail came before the restart; this run types its notice once.
	if holds.wrote() != "\r|"+sent {
		t.Errorf("alice: wrote %q, want the restart Enter then one notice", holds.wrote())
	}
}

func TestLoopWindowsGlyph(t *testing.T) {
	f := claudeRow("ws-a", "alice")
	f.glyph = ">"
	r := newRig(t, f)
	r.loop.Windows = true
	r.begin()
	r.in.mail("alice", 1)
	r.run(5 * time.Second)
	if f.wrote() != sent {
		t.Errorf("wrote %q, want the notice and Enter at Windows' > prompt", f.wrote())
	}
}

func TestLoopOneNoticePerBatchAcrossRows(t *testing.T) {
	// Two rows list one handle for a moment (a join moving it): the batch gets
	// one notice, not one per row.
	a, b := claudeRow("ws-a", "alice"), claudeRow("ws-b", "alice")
	r := newRig(t, a, b).begin()
	r.in.mail("alice", 1)
	r.run(time.Minute)
	if got := a.wrote() + "/" + b.wrote(); got != sent+"/" {
		t.Errorf("wrote %q, want one notice into the first row", got)
	}
}

func TestLoopUnreadableScreen(t *testing.T) {
	f := claudeRow("ws-a", "alice")
	f.blind = errors.New("tmux capture-pane failed")
	r := newRig(t, f).settled()
	r.in.mail("alice", 1)
	r.run(time.Minute)
	if f.wrote() != "" || f.looks < 30 {
		t.Errorf("wrote %q after %d tries to look, want nothing and a try each tick", f.wrote(), f.looks)
	}
	if n := strings.Count(r.log.String(), "tmux capture-pane failed"); n != 1 {
		t.Errorf("the fault was logged %d times, want once:\n%s", n, r.log)
	}
	r.mutate(func() { f.blind = nil })
	r.run(Every + StillFor + EchoWait)
	if f.wrote() != sent {
		t.Errorf("once the screen reads: wrote %q, want the notice and Enter", f.wrote())
	}
}

// A row that leaves the list takes what the loop remembered of it along: the
// same id listed again is owed no Enter and proves no stillness from before.
func TestLoopForgetsARemovedRow(t *testing.T) {
	f := claudeRow("ws-a", "alice")
	r := newRig(t, f).settled()
	r.in.mail("alice", 1)
	f.noEcho = 1 << 30 // the typed notice does not show before the row goes
	r.run(Every + StillFor)
	r.mutate(func() { r.rows.rows = nil })
	r.run(Every)
	if len(r.loop.st.owed)+len(r.loop.st.looks) != 0 {
		t.Fatalf("after the row left: owed %v, looks %v; want both empty", r.loop.st.owed, r.loop.st.looks)
	}
	r.mutate(func() { f.noEcho = 0; r.rows.rows = []*fakeRow{f} })
	r.run(time.Minute)
	if f.wrote() != registry.WakeNotice {
		t.Errorf("the row listed again: wrote %q, want the one notice and no Enter", f.wrote())
	}
}

func TestLoopLogsAFaultOnce(t *testing.T) {
	f := claudeRow("ws-a", "alice")
	r := newRig(t, f)
	r.in.fail["alice"] = errors.New("disk on fire")
	r.begin()
	r.run(time.Minute)
	if n := strings.Count(r.log.String(), "disk on fire"); n != 1 {
		t.Errorf("the fault was logged %d times over 30 ticks, want once:\n%s", n, r.log)
	}
	r.mutate(func() { delete(r.in.fail, "alice") })
	r.run(Every)
	r.mutate(func() { r.in.fail["alice"] = errors.New("disk on fire") })
	r.run(Every)
	if n := strings.Count(r.log.String(), "disk on fire"); n != 2 {
		t.Errorf("a fault that cleared and came back was logged %d times, want twice", n)
	}
}

// Run, with its ticker and timer injected: the restart look at the start, a
// notice within a tick and StillFor, and a clean end.
func TestRun(t *testing.T) {
	defer goleak.VerifyNone(t)
	f := claudeRow("ws-a", "alice")
	f.box = registry.WakeNotice
	r := newRig(t, f)
	ticks := make(chan time.Time)
	r.loop.Ticker = func(d time.Duration) (<-chan time.Time, func()) {
		if d != Every {
			t.Errorf("ticker every %v, want %v", d, Every)
		}
		return ticks, func() {}
	}
	r.loop.After = func(d time.Duration) <-chan time.Time {
		r.clk.Add(d)
		c := make(chan time.Time, 1)
		c <- r.clk.Now()
		return c
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.loop.Run(ctx) }()
	tick := func() {
		r.clk.Add(Every)
		ticks <- r.clk.Now()
	}
	tick() // the first pass has run once Run takes a tick
	r.in.mail("alice", 1)
	want := "\r|" + sent
	wrote := func() string {
		r.rows.mu.Lock()
		defer r.rows.mu.Unlock()
		return f.wrote()
	}
	// Each tick is taken only after the pass before it ended; the Enter may
	// come from a pass the timer starts, so tick until it shows, boundedly.
	for i := 0; i < 20 && wrote() != want; i++ {
		tick()
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v, want nil at the end of its context", err)
	}
	if got := wrote(); got != want {
		t.Errorf("wrote %q, want the restart Enter, then the notice and its Enter", got)
	}
}

// Run with filings: one right after a pass waits out MailGap, a burst within
// that gap starts only the one pass, and one after a quiet MailGap starts its
// pass at once.
func TestRunFiled(t *testing.T) {
	defer goleak.VerifyNone(t)
	r := newRig(t, claudeRow("ws-a", "alice"))
	filed := make(chan struct{}, 1)
	r.loop.Filed = filed
	r.loop.Ticker = func(time.Duration) (<-chan time.Time, func()) { return nil, func() {} }
	gap := make(chan time.Time)
	var mu sync.Mutex
	var waits []time.Duration
	r.loop.After = func(d time.Duration) <-chan time.Time {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, d)
		return gap
	}
	lists := func() int {
		r.rows.mu.Lock()
		defer r.rows.mu.Unlock()
		return r.rows.lists
	}
	waited := func() []time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(waits)
	}
	file := func() {
		select {
		case filed <- struct{}{}:
		default:
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.loop.Run(ctx) }()
	testutil.Eventually(t, 5*time.Second, "the first pass", func() bool { return lists() == 2 }) // the restart look's list, then the pass's

	file()
	testutil.Eventually(t, 5*time.Second, "the wait for MailGap", func() bool { return len(waited()) == 1 })
	if got := waited(); got[0] != MailGap {
		t.Errorf("a filing right after a pass waited %v, want MailGap %v", got[0], MailGap)
	}
	for range 20 {
		file()
		// Each taken before the next, so that none is left for after the pass.
		testutil.Eventually(t, 5*time.Second, "the filing taken", func() bool { return len(filed) == 0 })
	}
	if n := lists(); n != 2 {
		t.Errorf("the rows were listed %d times before the gap ended, want 2: a filing in the gap started a pass", n)
	}
	gap <- r.clk.Now()
	testutil.Eventually(t, 5*time.Second, "the burst's one pass", func() bool { return lists() == 3 })

	r.clk.Add(MailGap)
	file()
	testutil.Eventually(t, 5*time.Second, "the pass a filing starts at once", func() bool { return lists() == 4 })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v, want nil at the end of its context", err)
	}
	if n, w := lists(), waited(); n != 4 || len(w) != 1 {
		t.Errorf("the rows were listed %d times and %d gaps waited, want 4 and 1", n, len(w))
	}
}
