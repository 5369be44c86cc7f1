package registry

import (
	"errors"
	"fmt"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry/reglock"
)

// Mark applies set to name's row under the registry lock, bounded by wait, and
// writes the row back: the one read-decide-write of a single row's stamps (Touch,
// and the agent hooks' stop_at mark and heartbeat). A row that is absent, or not
// an object, is left alone and Mark returns an error wrapping ErrNoRow; set
// returning ErrSkip writes nothing and Mark returns nil.
//
// The row is written in place: the rest of the file is kept byte for byte and
// not decoded, so a mark costs a walk of the file, not a parse and a rewrite
// of every row (BenchmarkReadRowsSize's write). A file the walk does not take
// as simply (a second .agents, the name twice) is written by Update's whole
// parse, which also gives every unreadable answer its words.
func Mark(h home.Home, name string, wait time.Duration, set func(*Entry) error) error {
	return locked(h, reglock.Options{Deadline: wait}, func() error { return markRow(h, name, set) })
}

// markRow is Mark under the lock.
func markRow(h home.Home, name string, set func(*Entry) error) error {
	whole := func(d *Doc) error {
		e, ok := d.Agents[name]
		if !ok || e.odd != nil {
			return fmt.Errorf("%w for '%s'", ErrNoRow, name)
		}
		return set(e)
	}
	old, err := readBytes(h, h.Registry())
	if err != nil {
		return &UpdateError{reasonNotWritten, err}
	}
	p, ok := pick(old, map[string]bool{name: true})
	if !ok || p.agentN != 1 || p.hits > 1 {
		return replaceFrom(h, old, whole)
	}
	raw, ok := p.rows[name]
	if !ok || raw[0] != '{' {
		return fmt.Errorf("%w for '%s'", ErrNoRow, name)
	}
	e, err := parseEntry(raw)
	if err != nil {
		return replaceFrom(h, old, whole)
	}
	if err := set(e); err != nil {
		if errors.Is(err, ErrSkip) {
			return nil
		}
		return err
	}
	row, err := e.marshal()
	if err != nil {
		return &UpdateError{reasonNotWritten, fmt.Errorf("agent %q: %w", name, err)}
	}
	at := p.starts[name]
	body := make([]byte, 0, len(old)-len(raw)+len(row))
	body = append(append(append(body, old[:at]...), row...), old[at+len(raw):]...)
	return publish(h, old, body)
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
