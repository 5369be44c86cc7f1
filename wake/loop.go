package wake

import (
	"context"
	"log/slog"
	"time"

	"github.com/sotcomm/sotd/internal/nolog"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/screen"
)

// The wake loop's times, in the protocol's words.
const (
	// Every is the loop's tick: "every two seconds each daemon looks at every
	// row it runs".
	Every = 2 * time.Second
	// StillFor is how long the screen down to the box's lower rule must hold
	// still before anything is typed.
	StillFor = 1500 * time.Millisecond
	// RepeatAfter is when a batch still unread gets its one more notice.
	RepeatAfter = 10 * time.Minute
	// EchoWait is how soon after typing the notice the loop looks for it in
	// the box, to send Enter; Claude Code draws a typed line within a frame.
	EchoWait = 100 * time.Millisecond
	// MailGap is the least time between a pass and the next one Filed starts:
	// a burst of filings is looked at once per MailGap, not once per filing.
	MailGap = EchoWait
	// EchoFor is how long a typed notice may take to show in the box: a box
	// found empty after that means the line went (or a person cleared it), so
	// no Enter is owed any more.
	EchoFor = 2 * time.Second
	// LateFor is how long after typing a notice found not drawn by EchoFor is
	// still given its Enter if it shows alone in the box: a loaded machine was
	// seen to draw a typed line over 9 s late, and a line left unsent in a
	// person's prompt is worse than no notice.
	LateFor = 30 * time.Second
)

// Row is what the loop needs of one row the daemon runs.
type Row struct {
	ID, Handle string
	// Agent is what the row runs: only a Claude Code or a Codex row is typed
	// into, each at its own prompt (Options.Agent).
	Agent rows.Agent
	Ready bool // the row's process runs and has drawn its screen
}

// Typed reports whether the wake types into a row that runs agent: Claude
// Code and Codex, whose prompts the free-prompt test knows; never another
// program.
func Typed(agent rows.Agent) bool { return agent == rows.Claude || agent == rows.Codex }

// Rows is the daemon's rows as the loop sees them. Input of one row must not
// interleave with another writer's; the loop itself writes from one goroutine.
type Rows interface {
	List() []Row
	Screen(id string) (*screen.Screen, error)
	Input(id string, data []byte) error
}

// Loop is the wake: a service that types the notice (registry.WakeNotice),
// then Enter, into each Claude Code or Codex row idle at a free prompt whose handle has
// unread mail. See Run for the rules it keeps.
type Loop struct {
	Rows Rows
	// Unread counts handle's unread lines by the one unread rule and names the
	// batch they make (see FilerUnread). An error wrapping filer.ErrBusy means
	// the inbox is being written: the loop asks again at the next tick.
	Unread func(handle string) (n int, batch string, err error)
	// Entry is handle's registry entry, for its stop_at mark.
	Entry func(handle string) (e *registry.Entry, present bool, err error)
	// Windows: the rows run on Windows (see Options).
	Windows bool
	Now     func() time.Time                                 // time.Now
	Ticker  func(d time.Duration) (<-chan time.Time, func()) // a time.Ticker
	After   func(d time.Duration) <-chan time.Time           // time.After
	Log     *slog.Logger                                     // nil: none (nolog)
	// Filed, when set, wakes the loop for a pass: its owner sends on it when a
	// line is filed for a handle a row may act as, so a notice does not wait up
	// to a tick to start (see Run).
	Filed <-chan struct{}

	st *state // made at the first Run and kept across restarts of Run
}

// Run looks at the rows every 2 s until ctx ends; it returns nil then.
//
// For each Ready Claude Code or Codex row (Typed) with a handle it counts the handle's unread mail.
// A batch it has not typed a notice for in this Loop's life, or a batch still
// unread RepeatAfter since its notice (once), is due. A due row whose registry
// entry carries a stop_at under a minute old is running its Stop hook, which
// reads the mail itself, and is not typed into. Otherwise the loop looks at
// the screen: when the region StillRegion watches has held still for StillFor
// and Check says Free, it types the notice as one write. The region holds
// still while it shows the same text on unbroken looks; a screen that says
// when its rows and cursor last changed (the PTY's and tmux's backends') tells
// it better, so a region still for StillFor before its first look is still at
// once, and (the PTY's) a change undone between two looks is not missed. A row not due is not
// looked at (so idle rows cost one inbox read a tick), and a row not looked at
// in a pass has its stillness by looks forgotten. A row found not yet proven
// still is looked at again when StillFor since the region's last change has
// passed, without waiting for the next tick, so a notice goes within a tick
// and StillFor of the mail being counted, or of the screen's last change.
//
// Enter is its own write, sent when a later look (every EchoWait for EchoFor
// after typing, then every tick) finds Check saying HoldsNotice: the box shows
// exactly the line. It does not wait for stillness: the line just typed is
// what changed the screen.
// A typed notice is owed its Enter until that happens, until the box is found
// Free after EchoFor (the line went or was cleared), or until RepeatAfter; one
// found Free after EchoFor still gets its Enter if it shows alone in the box
// within LateFor (a slow echo), and blocks no new notice meanwhile.
// A box holding anything else is left as it is.
//
// The first Run of a Loop (a started or restarted daemon) looks once at every
// row it may type into, as soon as the row is Ready and not held by stop_at,
// and sends Enter alone where the box holds exactly the notice, whether or not
// its mail is unread: an earlier daemon typed it and did not send it.
//
// A filing (Filed) starts a pass at once, or MailGap after the pass before
// it, whichever is later, so a burst of filings costs one look at the rows per
// MailGap.
//
// Every write respects the stop_at rule; Escape is never sent; the message
// itself is never typed. All writes come from Run's goroutine, so writes to a
// row are serialized.
func (l *Loop) Run(ctx context.Context) error {
	if l.st == nil {
		l.start()
	}
	ticks, stop := l.ticker()
	defer stop()
	for {
		var soon <-chan time.Time
		if d := l.step(); d > 0 {
			soon = l.after(d)
		}
		if !l.sleep(ctx, ticks, soon) {
			return nil
		}
	}
}

// sleep waits until the next pass is due, by the tick, a row's own look
// (soon) or a filing; false when ctx ends first.
func (l *Loop) sleep(ctx context.Context, ticks, soon <-chan time.Time) bool {
	var gap <-chan time.Time // a filing's pass, waiting out MailGap
	for {
		select {
		case <-ctx.Done():
			return false
		case <-ticks:
			return true
		case <-soon:
			return true
		case <-gap:
			return true
		case <-l.Filed:
			if gap != nil {
				continue
			}
			if wait := l.st.passed.Add(MailGap).Sub(l.now()); wait > 0 {
				gap = l.after(wait)
				continue
			}
			return true
		}
	}
}

func (l *Loop) now() time.Time {
	if l.Now == nil {
		return time.Now()
	}
	return l.Now()
}

func (l *Loop) ticker() (<-chan time.Time, func()) {
	if l.Ticker == nil {
		t := time.NewTicker(Every)
		return t.C, t.Stop
	}
	return l.Ticker(Every)
}

func (l *Loop) after(d time.Duration) <-chan time.Time {
	if l.After == nil {
		return time.After(d)
	}
	return l.After(d)
}

func (l *Loop) log() *slog.Logger { return nolog.Or(l.Log) }
