package registry

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The index answers Live's rule: at every cutoff, its live names are those
// Live judges live, newest first, whatever the stamps (ties, stamps ahead of
// the clock, last_seen values that are no stamp), and after each one-row
// change (With) it is the index of the changed registry.
func TestLiveIndexIsLivesRule(t *testing.T) {
	t.Setenv("COMM_LIVE_SECS", "")
	t.Setenv("LIVE_SECS", "")
	now := time.Date(2026, 5, 29, 18, 10, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(1, 2))
	seen := func() string {
		switch rng.IntN(8) {
		case 0:
			return ""
		case 1:
			return "yesterday"
		case 2:
			return Stamp(now.Add(-10 * time.Minute)) // exactly at the bound
		case 3:
			return Stamp(now.Add(time.Hour)) // ahead of this clock
		}
		return Stamp(now.Add(-time.Duration(rng.IntN(40)) * 30 * time.Second)) // ties among them
	}
	agents := map[string]*Entry{}
	for i := range 300 {
		agents[fmt.Sprintf("h%03d", i)] = &Entry{LastSeen: seen()}
	}
	check := func(when string, x *LiveIndex) {
		t.Helper()
		for _, at := range []time.Time{now, now.Add(-5 * time.Minute), now.Add(3 * time.Minute), now.Add(2 * time.Hour)} {
			var want []string
			for name, e := range agents {
				if Live(e.LastSeen, at) {
					want = append(want, name)
				}
			}
			got := x.Live(LiveAt(at))
			if !slices.IsSortedFunc(got, func(a, b string) int { return newer(seenRow{agents[a].LastSeen, a}, seenRow{agents[b].LastSeen, b}) }) {
				t.Fatalf("%s, at %s: %v is not newest first", when, Stamp(at), got)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%s, at %s: the index calls %d live, Live %d:\n got %v\nwant %v", when, Stamp(at), len(got), len(want), got, want)
			}
		}
	}
	x := IndexLive(agents)
	check("the index of the registry", x)
	for step := range 200 {
		name := fmt.Sprintf("h%03d", rng.IntN(320)) // some absent: a join
		old := agents[name]
		var e *Entry
		if rng.IntN(10) > 0 { // else a leave
			e = &Entry{LastSeen: seen()}
		}
		next := x.With(name, old, e)
		if e == nil {
			delete(agents, name)
		} else {
			agents[name] = e
		}
		check(fmt.Sprintf("after change %d (%s: %v -> %v)", step, name, old, e), next)
		x = next
	}
}
