package daemon

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/wire"
)

var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func seen(at time.Time) string { return at.UTC().Format(time.RFC3339) }

func viewOf(es ...wire.ViewEntry) map[string]wire.ViewEntry {
	m := map[string]wire.ViewEntry{}
	for _, e := range es {
		m[e.Handle] = e
	}
	return m
}

// TestViewToldSendsOnlyChangesAtABoundedRate: a new link gets the whole view;
// then only what changed, at most one event each viewGap; a last_seen that
// moved by under viewSeenGrain is no change, but creeping past it in steps is.
func TestViewToldSendsOnlyChangesAtABoundedRate(t *testing.T) {
	alice := wire.ViewEntry{Handle: "alice", Box: "ga", LastSeen: seen(t0), Live: true, State: "idle"}
	bob := wire.ViewEntry{Handle: "bob", Box: "ga", LastSeen: seen(t0), Live: true, State: "working"}
	var tl viewTold
	boxes := []wire.ViewBox{{Box: "hb", Up: true}}

	ev, ok := tl.next(viewOf(alice, bob), boxes, t0)
	if !ok || !ev.Full || len(ev.Entries) != 2 || len(ev.Boxes) != 1 {
		t.Fatalf("first event: %+v, %v; want the full view", ev, ok)
	}
	tl.told(ev, t0)
	if _, ok := tl.next(viewOf(alice, bob), boxes, t0.Add(5*time.Second)); ok {
		t.Fatal("an event with nothing changed")
	}

	bob.State = "done"
	if _, ok := tl.next(viewOf(alice, bob), boxes, t0.Add(viewGap/2)); ok {
		t.Fatal("a second event within viewGap of the first")
	}
	ev, ok = tl.next(viewOf(alice, bob), boxes, t0.Add(viewEvery))
	if !ok || ev.Full || len(ev.Entries) != 1 || ev.Entries[0].Handle != "bob" || ev.Boxes != nil {
		t.Fatalf("after bob's change: %+v, %v; want bob alone", ev, ok)
	}
	tl.told(ev, t0.Add(viewEvery))

	at := t0.Add(2 * viewEvery)
	for step := 1; step <= 3; step++ {
		alice.LastSeen = seen(t0.Add(time.Duration(step) * 25 * time.Second))
		at = at.Add(viewEvery)
		ev, ok = tl.next(viewOf(alice, bob), boxes, at)
		if moved := step*25 >= 60; ok != moved {
			t.Fatalf("alice's last_seen %ds on: event %v (%+v), want %v", step*25, ok, ev, moved)
		}
		if ok {
			tl.told(ev, at)
		}
	}

	alice.Live = false
	at = at.Add(viewEvery)
	if ev, ok = tl.next(viewOf(alice), boxes, at); !ok || len(ev.Removed) != 1 || ev.Removed[0] != "bob" || len(ev.Entries) != 1 || ev.Entries[0].Live {
		t.Fatalf("alice gone stale and bob gone: %+v, %v", ev, ok)
	}
}

// TestSplitViewKeepsOrder: a view larger than one chunk goes as a full event
// and plain ones that, applied in order, make the same view.
func TestSplitViewKeepsOrder(t *testing.T) {
	var ev wire.LinkView
	ev.Full = true
	for i := range 3000 {
		ev.Entries = append(ev.Entries, wire.ViewEntry{Handle: fmt.Sprintf("h%04d", i), Box: "ga", Summary: strings.Repeat("s", 200)})
	}
	parts := splitView(ev)
	if len(parts) < 2 {
		t.Fatalf("%d parts for a view past viewChunk", len(parts))
	}
	var c netCopy
	for i, p := range parts {
		b, _ := json.Marshal(p)
		if len(b) > viewChunk+4096 {
			t.Fatalf("part %d is %d bytes", i, len(b))
		}
		if p.Full != (i == 0) {
			t.Fatalf("part %d has Full %v", i, p.Full)
		}
		c.apply(p)
	}
	if len(c.entries) != 3000 || !c.known {
		t.Fatalf("the copy holds %d entries (known %v)", len(c.entries), c.known)
	}
	c.lost(t0, "the link to the hub hb is down")
	if c.known || c.entries != nil || !c.asOf.Equal(t0) {
		t.Fatalf("after the link ended: known %v, %d entries, as of %v", c.known, len(c.entries), c.asOf)
	}
}

// TestViewTraffic measures the view's traffic with 200 handles on 10 boxes
// over 10 simulated minutes: every handle's last_seen is stamped each minute
// (the daemon's stamper, each box at its own second) and each session changes
// its work-state every 3 minutes on average. Each guest runs the directory's
// view step every directoryEvery; the hub runs its push every viewEvery.
func TestViewTraffic(t *testing.T) {
	t.Parallel() // a simulation on its own data: it runs beside the wake tests' waits
	const boxes, perBox = 10, 20
	const minutes = 10
	type guest struct {
		name    string
		entries map[string]wire.ViewEntry
		up      viewTold // what the hub was told
		down    viewTold // what the hub told this guest
	}
	gs := make([]*guest, boxes)
	for i := range gs {
		g := &guest{name: fmt.Sprintf("box%02d", i), entries: map[string]wire.ViewEntry{}}
		for j := range perBox {
			h := fmt.Sprintf("%s-Repository-%02d", g.name, j)
			g.entries[h] = wire.ViewEntry{Handle: h, Box: g.name, Repo: "Repository", Expertise: []string{"go", "networking"},
				LastSeen: seen(t0), Live: true, State: "working", Summary: "rebuilding backend + BE suite", StatusAt: seen(t0)}
		}
		gs[i] = g
	}
	var upEvents, upBytes, downEvents, downBytes, upEntries, downEntries int
	size := func(ev wire.LinkView) int {
		n := 0
		for _, p := range splitView(ev) {
			b, _ := json.Marshal(p)
			n += len(b)
		}
		return n
	}
	end := t0.Add(minutes * time.Minute)
	nextDir := t0
	nextHub := t0
	for at := t0; at.Before(end); at = at.Add(500 * time.Millisecond) {
		sec := int(at.Sub(t0) / time.Second)
		frac := at.Sub(t0) % time.Second
		if frac == 0 {
			for i, g := range gs {
				j := 0
				for h, e := range g.entries {
					if sec%60 == i*6 { // the box's stamper
						e.LastSeen = seen(at)
					}
					if (sec+j*9+i*7)%180 == 0 { // a work-state change
						e.State = map[bool]string{true: "working", false: "done"}[e.State != "working"]
						e.StatusAt = seen(at)
					}
					g.entries[h] = e
					j++
				}
			}
		}
		if !at.Before(nextDir) {
			nextDir = nextDir.Add(directoryEvery)
			for _, g := range gs {
				if ev, ok := g.up.next(g.entries, nil, at); ok {
					g.up.told(ev, at)
					upEvents++
					upBytes += size(ev)
					upEntries += len(ev.Entries)
				}
			}
		}
		if !at.Before(nextHub) {
			nextHub = nextHub.Add(viewEvery)
			for _, g := range gs {
				merged := map[string]wire.ViewEntry{}
				for _, o := range gs {
					if o != g {
						maps.Copy(merged, o.up.entries)
					}
				}
				if ev, ok := g.down.next(merged, nil, at); ok {
					g.down.told(ev, at)
					if !ev.Full {
						downEvents++
						downBytes += size(ev)
						downEntries += len(ev.Entries)
					}
				}
			}
		}
	}
	full := size(wire.LinkView{Full: true, Entries: valuesOf(gs[0].down.entries)})
	t.Logf("200 handles on 10 boxes, %d minutes:", minutes)
	t.Logf("  guest -> hub: %.1f events/min per guest, %.0f bytes/event, %.1f entries/event",
		float64(upEvents)/minutes/boxes, float64(upBytes)/float64(upEvents), float64(upEntries)/float64(upEvents))
	t.Logf("  hub -> guest: %.1f events/min per guest, %.0f bytes/event, %.1f entries/event",
		float64(downEvents)/minutes/boxes, float64(downBytes)/float64(downEvents), float64(downEntries)/float64(downEvents))
	t.Logf("  hub total: %.0f bytes/min out, %.0f bytes/min in; a new link's snapshot: %d bytes",
		float64(downBytes)/minutes, float64(upBytes)/minutes, full)
	if per := float64(downEvents) / minutes / boxes; per > 60 {
		t.Fatalf("the hub sent %.1f events a minute to each guest, over one a second", per)
	}
	if per := float64(upEvents) / minutes / boxes; per > 40 {
		t.Fatalf("a guest sent %.1f events a minute, over one each directoryEvery", per)
	}
}

func valuesOf(m map[string]wire.ViewEntry) []wire.ViewEntry {
	out := make([]wire.ViewEntry, 0, len(m))
	for _, e := range m {
		out = append(out, e)
	}
	return out
}
