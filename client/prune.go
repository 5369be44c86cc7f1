package client

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sotcomm/sotd/registry"
)

// ParseAge reads an age such as 30d, 12h or 90m (or any Go duration): the
// days a person thinks of stale entries in are not a Go duration unit.
func ParseAge(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 {
			return 0, fmt.Errorf("%q is not an age: give days as 30d, or a duration as 12h or 90m", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not an age: give days as 30d, or a duration as 12h or 90m", s)
	}
	return d, nil
}

// Prune is `sotd leave --stale-for AGE`: it removes, in one registry write,
// every entry that has been stale (registry.StaleFor) for at least age and that
// no row holds, and prints each one it removed. The protocol forbids reusing a
// handle that has an entry, so stale entries stay until a person removes them:
// this is that person's one command, never run by itself.
func (s *Session) Prune(age time.Duration) int {
	if !s.admitted() {
		return ExitFailed
	}
	now := s.Now()
	var gone, held []string
	seen := map[string]string{}
	err := registry.Update(s.Home, registry.Ruled(), func(d *registry.Doc) error {
		gone, held = nil, nil
		for name, e := range d.Agents {
			if !registry.StaleFor(e.LastSeen, now, age) {
				continue
			}
			if row := s.heldByRow(d, name); row != "" {
				held = append(held, fmt.Sprintf("@%s (row %s)", name, row))
				continue
			}
			gone = append(gone, name)
			seen[name] = e.LastSeen
		}
		if len(gone) == 0 {
			return registry.ErrSkip
		}
		for _, name := range gone {
			delete(d.Agents, name)
		}
		return nil
	})
	if s.removeFailed(err) {
		return ExitFailed
	}
	slices.Sort(gone)
	slices.Sort(held)
	for _, name := range gone {
		s.out("removed: @%s (last seen %s)", name, printable(seen[name], false))
	}
	if len(held) > 0 {
		s.out("kept, held by a row (despawn the row to remove it): %s", strings.Join(held, ", "))
	}
	if len(gone) == 0 {
		s.out("no entry has been stale for %s; nothing to remove", ageText(age))
		return ExitOK
	}
	s.out("left: %d %s stale for %s removed from the registry", len(gone), plural(len(gone), "entry", "entries"), ageText(age))
	return ExitOK
}

// ageText writes an age as ParseAge reads it: whole days as 30d.
func ageText(d time.Duration) string {
	if day := 24 * time.Hour; d >= day && d%day == 0 {
		return fmt.Sprintf("%dd", d/day)
	}
	return d.String()
}
