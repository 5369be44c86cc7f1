package registry

import (
	"errors"
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
func Live(lastSeen string, now time.Time) bool {
	if !stampShape(lastSeen) {
		return false
	}
	return lastSeen > Stamp(now.Add(-LiveFor()))
}

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
