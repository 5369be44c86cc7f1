package registry

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sotcomm/sotd/home"
)

// DefaultLive is how old a last_seen may be and still count as live.
const DefaultLive = 600 * time.Second

// LiveFor is the liveness window: $COMM_LIVE_SECS, else $LIVE_SECS, else 600 s.
func LiveFor() time.Duration {
	return home.EnvSeconds("COMM_LIVE_SECS", home.EnvSeconds("LIVE_SECS", DefaultLive))
}

// stampLayout is the registry's one time shape, YYYY-MM-DDTHH:MM:SSZ.
const stampLayout = "2006-01-02T15:04:05Z"

// Stamp formats t as the registry's YYYY-MM-DDTHH:MM:SSZ.
func Stamp(t time.Time) string { return t.UTC().Format(stampLayout) }

// Live is the one liveness rule, the twin of the shell's sot_heartbeat_fresh and
// the daemon's heartbeat_fresh: lastSeen is exactly YYYY-MM-DDTHH:MM:SSZ in ASCII
// digits and sorts, as bytes, after Stamp(now - LiveFor()). Both writers stamp that
// fixed-width shape, so byte order is time order. Consequences, kept on purpose so
// every client agrees on one row:
//   - A stamp ahead of the reader's clock is live (an age is read against the
//     reader's clock, so skew between boxes moves the window by the skew) and stays
//     live until the reader's clock passes it by the window; there is no upper bound.
//   - The shape is checked, not the calendar: a hand-written "2026-13-40T…" compares
//     as bytes like any other stamp.
//   - Anything else (another format, fractional seconds, an offset, "") is not live.
func Live(lastSeen string, now time.Time) bool { return LiveAt(now).Live(lastSeen) }

// Cutoff is Live's rule at one now with its bound found once, for a loop that
// judges many entries: Live formats the bound and reads the environment at
// each call, which over 10,000 entries cost more than the rest of a list.
type Cutoff struct{ after string }

// LiveAt is the Cutoff of Live at now.
func LiveAt(now time.Time) Cutoff { return Cutoff{Stamp(now.Add(-LiveFor()))} }

// Live is Live(lastSeen, now) for c's now.
func (c Cutoff) Live(lastSeen string) bool { return stampShape(lastSeen) && lastSeen > c.after }

// StaleFor is Live's other side, for removing entries by hand: lastSeen has
// been stale for at least d at now, that is, it sorts at or before
// Stamp(now - LiveFor() - d). A last_seen that is not a stamp has no age, and is
// stale for no d: such an entry is never removed by its age.
func StaleFor(lastSeen string, now time.Time, d time.Duration) bool {
	return stampShape(lastSeen) && lastSeen <= Stamp(now.Add(-LiveFor()-d))
}

func stampShape(s string) bool {
	if len(s) != len(stampLayout) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c, want := s[i], stampLayout[i]
		if want >= '0' && want <= '9' {
			if c < '0' || c > '9' {
				return false
			}
		} else if c != want {
			return false
		}
	}
	return true
}

// Touch bumps name's last_seen to now under the lock, bounded by wait (TouchWait for
// send and poll, BeatWait for the heartbeat). It is best effort: a row that is
// absent (or not an object) is left alone and is no error.
func Touch(h home.Home, name string, now time.Time, wait time.Duration) error {
	err := Mark(h, name, wait, func(e *Entry) error {
		e.LastSeen = Stamp(now)
		return nil
	})
	if errors.Is(err, ErrNoRow) {
		return nil
	}
	return err
}

// LiveIndex is a registry's entries in last_seen order, newest first, for a
// reader that asks again and again which are live (the daemon's net.list): an
// ask costs a search and the live entries, not a judgment of every entry of
// a registry that keeps every handle that ever joined. An entry whose
// last_seen is not a stamp is never live, and is not held.
type LiveIndex struct{ rows []seenRow }

// seenRow is one held entry: its last_seen and its name.
type seenRow struct{ lastSeen, name string }

// newer orders rows newest first, then by name, so that each row has one place.
func newer(a, b seenRow) int {
	if a.lastSeen != b.lastSeen {
		return strings.Compare(b.lastSeen, a.lastSeen)
	}
	return strings.Compare(a.name, b.name)
}

// IndexLive is the LiveIndex of agents.
func IndexLive(agents map[string]*Entry) *LiveIndex {
	rows := make([]seenRow, 0, len(agents))
	for name, e := range agents {
		if stampShape(e.LastSeen) {
			rows = append(rows, seenRow{e.LastSeen, name})
		}
	}
	slices.SortFunc(rows, newer)
	return &LiveIndex{rows}
}

// With is x after name's entry went from old to now (nil for absent); x
// itself is unchanged.
func (x *LiveIndex) With(name string, old, now *Entry) *LiveIndex {
	rows := make([]seenRow, len(x.rows), len(x.rows)+1)
	copy(rows, x.rows)
	if old != nil && stampShape(old.LastSeen) {
		if i, ok := slices.BinarySearchFunc(rows, seenRow{old.LastSeen, name}, newer); ok {
			rows = slices.Delete(rows, i, i+1)
		}
	}
	if now != nil && stampShape(now.LastSeen) {
		r := seenRow{now.LastSeen, name}
		i, _ := slices.BinarySearchFunc(rows, r, newer)
		rows = slices.Insert(rows, i, r)
	}
	return &LiveIndex{rows}
}

// Live is the names of the entries live at c, newest first. Of stamps, Live's
// rule takes those after c's bound, so the live are the first rows.
func (x *LiveIndex) Live(c Cutoff) []string {
	n := sort.Search(len(x.rows), func(i int) bool { return !c.Live(x.rows[i].lastSeen) })
	names := make([]string, n)
	for i, r := range x.rows[:n] {
		names[i] = r.name
	}
	return names
}
