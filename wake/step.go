package wake

import (
	"errors"
	"fmt"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/metrics"
	"github.com/sotcomm/sotd/registry"
)

// state is what the loop remembers within one daemon run; a restart forgets
// it, which is why a first Run looks for notices an earlier daemon typed.
type state struct {
	notices map[string]notice    // by handle: the last notice typed for it
	owed    map[string]owed      // by row id: an Enter the row may be owed
	late    map[string]time.Time // by row id: a notice typed then, not seen in its box by EchoFor
	looks   map[string]look      // by row id: the region seen on unbroken looks
	warned  map[string]string    // by fault: the warning last logged for it
	passed  time.Time            // when the last pass began
}

type notice struct {
	batch    string
	at       time.Time
	repeated bool // the one more notice after RepeatAfter was typed
}

// owed is an Enter a row may be owed: for a notice this run typed at typed,
// or, after a restart, for one an earlier daemon may have typed.
type owed struct {
	restart bool
	typed   time.Time
}

type look struct {
	region string
	since  time.Time // since when region has shown: see still
	at     time.Time // when the last look was
}

func newState() *state {
	return &state{notices: map[string]notice{}, owed: map[string]owed{}, late: map[string]time.Time{}, looks: map[string]look{}, warned: map[string]string{}}
}

// start makes the loop's memory and owes every row it types into, listed now,
// one look for a notice an earlier daemon typed.
func (l *Loop) start() {
	l.st = newState()
	for _, r := range l.Rows.List() {
		if Typed(r.Agent) {
			l.st.owed[r.ID] = owed{restart: true}
		}
	}
}

// step is one pass over the rows. It returns how soon a row wants another
// look (0: the next tick will do).
func (l *Loop) step() time.Duration {
	now := l.now()
	l.st.passed = now
	rows := l.Rows.List()
	listed := make(map[string]bool, len(rows))
	var soon time.Duration
	for _, r := range rows {
		listed[r.ID] = true
		looked, d := l.visit(r, now)
		if !looked {
			delete(l.st.looks, r.ID)
		}
		if d > 0 && (soon == 0 || d < soon) {
			soon = d
		}
	}
	for id := range l.st.owed {
		if !listed[id] {
			delete(l.st.owed, id)
		}
	}
	for id := range l.st.late {
		if !listed[id] {
			delete(l.st.late, id)
		}
	}
	for id := range l.st.looks {
		if !listed[id] {
			delete(l.st.looks, id)
		}
	}
	return soon
}

// visit looks at one row if it is owed an Enter or its handle is due a notice,
// and writes what is owed or due. It reports whether it looked at the screen.
func (l *Loop) visit(r Row, now time.Time) (looked bool, soon time.Duration) {
	if !Typed(r.Agent) || !r.Ready {
		return false, 0
	}
	o, owes := l.st.owed[r.ID]
	typed, late := l.st.late[r.ID]
	next, due := l.due(r.Handle, now)
	if (!owes && !due && !late) || l.stopHeld(r.Handle, now) {
		return false, 0
	}
	s, err := l.Rows.Screen(r.ID)
	if err != nil {
		l.warn("screen "+r.ID, "wake: the row's screen could not be read, so nothing is typed into it; it is read again each tick", "row", r.ID, "err", err)
		return false, 0
	}
	delete(l.st.warned, "screen "+r.ID)
	opt := Options{Agent: r.Agent, Windows: l.Windows}
	v := Check(s, opt)
	still, wait := l.still(r.ID, StillRegion(s, opt), regionChanged(s, opt), now)
	if owes {
		age := now.Sub(o.typed)
		switch {
		case v.Kind == HoldsNotice:
			if l.write(r, "\r", "sent Enter after the notice") {
				delete(l.st.owed, r.ID)
			}
			return true, 0
		case o.restart || v.Kind == Free && age >= EchoFor || age >= RepeatAfter:
			delete(l.st.owed, r.ID)
			if !o.restart && v.Kind == Free && age < LateFor {
				// Nothing showed: the line went, a person cleared it, or
				// the agent has not drawn it yet (seen under load, seconds
				// late). If it shows alone later, its Enter is still owed.
				l.st.late[r.ID] = o.typed
			}
		case age < EchoFor:
			return true, EchoWait
		default:
			return true, 0
		}
	}
	if late {
		switch {
		case v.Kind == HoldsNotice:
			if l.write(r, "\r", "sent Enter after a notice that showed late") {
				delete(l.st.late, r.ID)
			}
			return true, 0
		case now.Sub(typed) >= LateFor:
			delete(l.st.late, r.ID)
		}
	}
	switch {
	case !due || v.Kind != Free:
		return true, 0
	case !still:
		return true, wait
	}
	// Recorded whether or not the write succeeds: part of the line may have
	// gone, and within one run the line is never typed twice for a batch.
	l.st.notices[r.Handle] = next
	l.st.owed[r.ID] = owed{typed: now}
	if l.write(r, registry.WakeNotice, "typed the notice") {
		metrics.NoticeTyped()
	}
	return true, EchoWait
}

// due counts handle's unread mail and says whether a notice is due: for a batch
// not yet noticed, or once more for one still unread RepeatAfter since its
// notice. next is the notice to record when it is typed.
func (l *Loop) due(handle string, now time.Time) (next notice, due bool) {
	if handle == "" {
		return notice{}, false
	}
	n, batch, err := l.Unread(handle)
	fault := "unread @" + handle
	switch {
	case errors.Is(err, filer.ErrBusy):
		return notice{}, false
	case err != nil:
		l.warn(fault, "wake: the unread mail could not be counted, so no notice is typed for the handle; it is counted again each tick", "handle", handle, "err", err)
		return notice{}, false
	}
	delete(l.st.warned, fault)
	if n == 0 {
		return notice{}, false
	}
	last, ok := l.st.notices[handle]
	switch {
	case !ok || last.batch != batch:
		return notice{batch: batch, at: now}, true
	case !last.repeated && now.Sub(last.at) >= RepeatAfter:
		return notice{batch: batch, at: now, repeated: true}, true
	}
	return notice{}, false
}

// stopHeld is the stop_at rule. A registry that cannot be read holds the row
// too: the mark cannot be known, and the row's Stop hook reads the mail anyway.
func (l *Loop) stopHeld(handle string, now time.Time) bool {
	if handle == "" {
		return false
	}
	e, _, err := l.Entry(handle)
	fault := "registry @" + handle
	if err != nil {
		l.warn(fault, "wake: the registry could not be read, so the handle's stop_at mark is unknown and its row is not typed into; it is read again each tick", "handle", handle, "err", err)
		return true
	}
	delete(l.st.warned, fault)
	return registry.StopHookRunning(e, now)
}

// still records what a look saw and says whether the region has held still for
// StillFor, or how much longer it must. By the looks alone, the region has
// held since the first of the unbroken looks that saw it as it is. A screen
// that says when its region last changed (changed, not zero) is believed
// where it tells more: a region at its first look has held since then, one
// that differs from the last look changed when the screen says rather than
// at this look, and a change undone between two looks, which the looks
// cannot see, still counts. A region that differs from the last look is never
// taken to have held since before that look.
func (l *Loop) still(id, region string, changed, now time.Time) (bool, time.Duration) {
	lk, ok := l.st.looks[id]
	switch {
	case ok && lk.region == region:
	case changed.IsZero():
		lk.since = now
	default:
		lk.since = lk.at // zero for a first look
	}
	if changed.After(lk.since) {
		lk.since = changed
	}
	if lk.since.After(now) { // the backend's clock read later than the loop's
		lk.since = now
	}
	lk.region, lk.at = region, now
	l.st.looks[id] = lk
	if held := now.Sub(lk.since); held < StillFor {
		return false, StillFor - held
	}
	return true, 0
}

// write types data into the row as one write and reports whether it went.
func (l *Loop) write(r Row, data, what string) bool {
	if err := l.Rows.Input(r.ID, []byte(data)); err != nil {
		l.warn("input "+r.ID, "wake: a write to the row failed", "row", r.ID, "handle", r.Handle, "wrote", what, "err", err)
		return false
	}
	delete(l.st.warned, "input "+r.ID)
	l.log().Info("wake: wrote into the row", "row", r.ID, "handle", r.Handle, "wrote", what)
	return true
}

// warn logs a fault once until it changes or clears, so a fault that lasts
// does not fill the log every tick.
func (l *Loop) warn(fault, msg string, args ...any) {
	text := msg + fmt.Sprint(args...)
	if l.st.warned[fault] == text {
		return
	}
	l.st.warned[fault] = text
	l.log().Warn(msg, args...)
}
