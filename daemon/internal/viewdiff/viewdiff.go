// Package viewdiff says when two pictures of an entry or a row read the same,
// and what takes a reader from one picture of a set to the next: the network
// view's links and the status page both tell only what moved, by these rules.
package viewdiff

import (
	"maps"
	"slices"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// SeenGrain: a last_seen that moved by less than this is not a change worth
// an event (the liveness it feeds is judged where the entry lives, and a flip
// of it always is one), so a session's frequent stamps cost nothing on the
// links.
const SeenGrain = time.Minute

// SameInView says whether a reader told a needs no word about b: only a
// last_seen that moved by less than SeenGrain differs.
func SameInView(a, b wire.ViewEntry) bool {
	if a.LastSeen != b.LastSeen {
		ta, ea := time.Parse(time.RFC3339, a.LastSeen)
		tb, eb := time.Parse(time.RFC3339, b.LastSeen)
		if ea != nil || eb != nil || tb.Sub(ta).Abs() >= SeenGrain {
			return false
		}
		a.LastSeen = b.LastSeen
	}
	return a.Handle == b.Handle && a.Box == b.Box && a.Repo == b.Repo && slices.Equal(a.Expertise, b.Expertise) &&
		a.Live == b.Live && a.State == b.State && a.Summary == b.Summary && a.StatusAt == b.StatusAt
}

// SameViewRow says whether two rows, as the view carries them, read the same.
func SameViewRow(a, b wire.ViewRow) bool {
	if !sameExit(a.ExitCode, b.ExitCode) {
		return false
	}
	a.ExitCode, b.ExitCode = nil, nil
	return a == b
}

func sameExit(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// Changes is what takes a reader told told to now: what came or changed, in
// key order, and the keys gone.
func Changes[V any](told, now map[string]V, same func(a, b V) bool) (changed []V, gone []string) {
	for _, k := range slices.Sorted(maps.Keys(now)) {
		if old, ok := told[k]; !ok || !same(old, now[k]) {
			changed = append(changed, now[k])
		}
	}
	for k := range told {
		if _, ok := now[k]; !ok {
			gone = append(gone, k)
		}
	}
	slices.Sort(gone)
	return changed, gone
}
