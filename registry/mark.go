package registry

import (
	"fmt"
	"time"

	"github.com/sotcomm/sotd/home"
)

// Mark applies set to name's row under the registry lock, bounded by wait, and
// writes the row back: the one read-decide-write of a single row's stamps (Touch,
// and the agent hooks' stop_at mark and heartbeat). A row that is absent, or not
// an object, is left alone and Mark returns an error wrapping ErrNoRow; set
// returning ErrSkip writes nothing and Mark returns nil.
func Mark(h home.Home, name string, wait time.Duration, set func(*Entry) error) error {
	return Update(h, wait, func(d *Doc) error {
		e, ok := d.Agents[name]
		if !ok || e.odd != nil {
			return fmt.Errorf("%w for '%s'", ErrNoRow, name)
		}
		return set(e)
	})
}

// StopHookFor is how long a stop_at mark says a Stop hook is running. A turn
// ended by Esc or an API error runs no Stop hook to delete its mark, so an older
// mark holds nothing.
const StopHookFor = time.Minute

// StopHookRunning is the wake's stop_at rule: e carries a stop_at stamp under
// StopHookFor old, so its Stop hook is reading the mail itself and the row is not
// typed into. A stamp that is not the registry's shape holds nothing. A stamp
// ahead of now counts by its distance too (another box of a shared home with a
// skewed clock may have written it), so a skew cannot hold a row forever.
func StopHookRunning(e *Entry, now time.Time) bool {
	if e == nil || !stampShape(e.StopAt) {
		return false
	}
	t, err := time.Parse(stampLayout, e.StopAt)
	if err != nil {
		return false
	}
	age := now.Sub(t)
	return age < StopHookFor && age > -StopHookFor
}
