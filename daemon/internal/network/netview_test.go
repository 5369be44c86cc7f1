package network

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/hub"
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
// moved by under viewdiff.SeenGrain is no change, but creeping past it in steps is.
func TestViewToldSendsOnlyChangesAtABoundedRate(t *testing.T) {
	alice := wire.ViewEntry{Handle: "alice", Box: "ga", LastSeen: seen(t0), Live: true, State: "idle"}
	bob := wire.ViewEntry{Handle: "bob", Box: "ga", LastSeen: seen(t0), Live: true, State: "working"}
	var tl viewTold
	boxes := []wire.ViewBox{{Box: "hb", Up: true}}

	ev, ok := tl.next(viewOf(alice, bob), nil, boxes, t0)
	if !ok || !ev.Full || len(ev.Entries) != 2 || len(ev.Boxes) != 1 {
		t.Fatalf("first event: %+v, %v; want the full view", ev, ok)
	}
	tl.told(ev, t0)
	if _, ok := tl.next(viewOf(alice, bob), nil, boxes, t0.Add(5*time.Second)); ok {
		t.Fatal("an event with nothing changed")
	}

	bob.State = "done"
	if _, ok := tl.next(viewOf(alice, bob), nil, boxes, t0.Add(viewGap/2)); ok {
		t.Fatal("a second event within viewGap of the first")
	}
	ev, ok = tl.next(viewOf(alice, bob), nil, boxes, t0.Add(viewEvery))
	if !ok || ev.Full || len(ev.Entries) != 1 || ev.Entries[0].Handle != "bob" || ev.Boxes != nil {
		t.Fatalf("after bob's change: %+v, %v; want bob alone", ev, ok)
	}
	tl.told(ev, t0.Add(viewEvery))

	at := t0.Add(2 * viewEvery)
	for step := 1; step <= 3; step++ {
		alice.LastSeen = seen(t0.Add(time.Duration(step) * 25 * time.Second))
		at = at.Add(viewEvery)
		ev, ok = tl.next(viewOf(alice, bob), nil, boxes, at)
		if moved := step*25 >= 60; ok != moved {
			t.Fatalf("alice's last_seen %ds on: event %v (%+v), want %v", step*25, ok, ev, moved)
		}
		if ok {
			tl.told(ev, at)
		}
	}

	alice.Live = false
	at = at.Add(viewEvery)
	if ev, ok = tl.next(viewOf(alice), nil, boxes, at); !ok || len(ev.Removed) != 1 || ev.Removed[0] != "bob" || len(ev.Entries) != 1 || ev.Entries[0].Live {
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
	parts := SplitView(ev)
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
// view step every directoryEvery; the hub merges what it is told in the real
// hub.View (Apply, as onView does) and runs pushView's step every viewEvery
// (View.Entries of every box but the one told).
func TestViewTraffic(t *testing.T) {
	t.Parallel() // a simulation on its own data: it runs beside the wake tests' waits
	const boxes, perBox = 10, 20
	const minutes = 10
	type guest struct {
		name    string
		link    *viewPeer
		entries map[string]wire.ViewEntry
		up      viewTold // what the hub was told
		down    viewTold // what the hub told this guest
	}
	r := hub.New(hub.Config{Own: func() map[string]bool { return nil }})
	gs := make([]*guest, boxes)
	for i := range gs {
		g := &guest{name: fmt.Sprintf("box%02d", i), entries: map[string]wire.ViewEntry{}}
		g.link = &viewPeer{box: g.name, done: make(chan struct{})}
		r.Add(g.link)
		var held []string
		for j := range perBox {
			h := fmt.Sprintf("%s-Repository-%02d", g.name, j)
			g.entries[h] = wire.ViewEntry{Handle: h, Box: g.name, Repo: "Repository", Expertise: []string{"go", "networking"},
				LastSeen: seen(t0), Live: true, State: "working", Summary: "rebuilding backend + BE suite", StatusAt: seen(t0)}
			held = append(held, h)
		}
		if err := r.Directory(g.link, wire.LinkDirectory{Full: true, Added: held}); err != nil {
			t.Fatal(err)
		}
		gs[i] = g
	}
	var upEvents, upBytes, downEvents, downBytes, upEntries, downEntries int
	size := func(ev wire.LinkView) int {
		n := 0
		for _, p := range SplitView(ev) {
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
				if ev, ok := g.up.next(g.entries, nil, nil, at); ok {
					g.up.told(ev, at)
					if refused := r.View().Apply(g.link, ev); refused > 0 {
						t.Fatalf("the hub refused %d of %s's view", refused, g.name)
					}
					upEvents++
					upBytes += size(ev)
					upEntries += len(ev.Entries)
				}
			}
		}
		if !at.Before(nextHub) {
			nextHub = nextHub.Add(viewEvery)
			for _, g := range gs {
				v := r.View()
				if ev, ok := g.down.next(v.Entries(g.link, true), v.Rows(g.link, true), nil, at); ok {
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
	// The figures docs/routing.md quotes (7.4 events/min of ~870 bytes up,
	// 38 of ~1.4 KB down, 530 KB/min out of the hub, a 43 KB snapshot), held
	// within a sixth, so a change that grows them is seen here.
	for _, f := range []struct {
		what      string
		got, most float64
	}{
		{"bytes a guest's event", float64(upBytes) / float64(upEvents), 1000},
		{"bytes an event of the hub's", float64(downBytes) / float64(downEvents), 1650},
		{"bytes a minute out of the hub", float64(downBytes) / minutes, 620_000},
		{"bytes of a new link's snapshot", float64(full), 50_000},
	} {
		if f.got > f.most {
			t.Errorf("%s: %.0f, over the %.0f docs/routing.md allows for", f.what, f.got, f.most)
		}
	}
}

// valuesOf is m's values in key order.
func valuesOf[V any](m map[string]V) []V {
	out := make([]V, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}

func viewRowsOf(rs ...wire.ViewRow) map[string]wire.ViewRow {
	m := map[string]wire.ViewRow{}
	for _, r := range rs {
		m[r.Key()] = r
	}
	return m
}

// TestViewToldSendsRowChanges: rows go with the entries, the whole set on a
// new link, then only a row that came, changed (phase, exit code) or went,
// under the same rate bound.
func TestViewToldSendsRowChanges(t *testing.T) {
	w1 := wire.ViewRow{ID: "w1", Box: "ga", Label: "api", Phase: "Starting", Agent: "claude", Handle: "alice", Since: seen(t0)}
	w2 := wire.ViewRow{ID: "w1", Box: "gb", Label: "web", Phase: "Ready", Agent: "other", Since: seen(t0)}
	var tl viewTold
	ev, ok := tl.next(nil, viewRowsOf(w1, w2), nil, t0)
	if !ok || !ev.Full || len(ev.Rows) != 2 || ev.Rows[0].Key() != "ga/w1" || ev.Rows[1].Key() != "gb/w1" {
		t.Fatalf("first event: %+v, %v; want both rows, ga's w1 apart from gb's", ev, ok)
	}
	tl.told(ev, t0)

	w1.Phase = "Ready"
	if _, ok := tl.next(nil, viewRowsOf(w1, w2), nil, t0.Add(viewGap/2)); ok {
		t.Fatal("a row's change went within viewGap of the last event")
	}
	at := t0.Add(viewEvery)
	ev, ok = tl.next(nil, viewRowsOf(w1, w2), nil, at)
	if !ok || ev.Full || len(ev.Rows) != 1 || ev.Rows[0].Phase != "Ready" || len(ev.RowsRemoved) != 0 {
		t.Fatalf("after w1 became Ready: %+v, %v", ev, ok)
	}
	tl.told(ev, at)

	zero, one := 0, 1
	w1.Phase, w1.ExitCode = "Stopped", &zero
	at = at.Add(viewEvery)
	ev, _ = tl.next(nil, viewRowsOf(w1, w2), nil, at)
	tl.told(ev, at)
	w1.ExitCode = &one
	at = at.Add(viewEvery)
	if ev, ok = tl.next(nil, viewRowsOf(w1, w2), nil, at); !ok || len(ev.Rows) != 1 || *ev.Rows[0].ExitCode != 1 {
		t.Fatalf("an exit code that changed: %+v, %v", ev, ok)
	}
	tl.told(ev, at)
	at = at.Add(viewEvery)
	if _, ok := tl.next(nil, viewRowsOf(w1, w2), nil, at); ok {
		t.Fatal("an event with no row changed")
	}
	if ev, ok = tl.next(nil, viewRowsOf(w2), nil, at); !ok || len(ev.Rows) != 0 || !slices.Equal(ev.RowsRemoved, []string{"ga/w1"}) {
		t.Fatalf("after ga's w1 was removed: %+v, %v", ev, ok)
	}
}

// TestNetCopyKeepsRows: a guest's copy takes the hub's rows, full and then
// changes, and forgets them when the link ends.
func TestNetCopyKeepsRows(t *testing.T) {
	var c netCopy
	c.apply(wire.LinkView{Full: true, Rows: []wire.ViewRow{{ID: "w1", Box: "hb", Phase: "Ready"}, {ID: "w1", Box: "gb", Phase: "Ready"}}})
	c.apply(wire.LinkView{RowsRemoved: []string{"hb/w1"}, Rows: []wire.ViewRow{{ID: "w2", Box: "gb", Phase: "Starting"}}})
	if got := slices.Sorted(maps.Keys(c.rows)); !slices.Equal(got, []string{"gb/w1", "gb/w2"}) {
		t.Fatalf("the copy's rows: %v", got)
	}
	c.apply(wire.LinkView{Full: true})
	if len(c.rows) != 0 {
		t.Fatalf("a full view with no rows left %d", len(c.rows))
	}
	c.apply(wire.LinkView{Rows: []wire.ViewRow{{ID: "w3", Box: "gb", Phase: "Ready"}}})
	c.lost(t0, "down")
	if c.rows != nil {
		t.Fatal("the copy keeps rows after its link ended")
	}
}

// TestSplitViewKeepsRows: a large set of rows goes in parts too, the row
// removals with the first.
func TestSplitViewKeepsRows(t *testing.T) {
	ev := wire.LinkView{Full: true, RowsRemoved: []string{"ga/old"}}
	for i := range 3000 {
		ev.Rows = append(ev.Rows, wire.ViewRow{ID: fmt.Sprintf("w%04d", i), Box: "ga", Label: strings.Repeat("l", 200), Phase: "Ready"})
	}
	parts := SplitView(ev)
	if len(parts) < 2 || len(parts[0].RowsRemoved) != 1 || len(parts[1].RowsRemoved) != 0 {
		t.Fatalf("%d parts; removals %v then %v", len(parts), parts[0].RowsRemoved, parts[len(parts)-1].RowsRemoved)
	}
	var c netCopy
	for _, p := range parts {
		c.apply(p)
	}
	if len(c.rows) != 3000 {
		t.Fatalf("the copy holds %d rows", len(c.rows))
	}
}

// TestViewRowsTraffic measures what the rows add to the view's traffic with
// 50 rows on 10 boxes over 30 simulated minutes: each row starts (Starting,
// Ready a second later), runs 10 minutes, stops with an exit code, is removed
// a minute later and a new one is spawned in its place, the rows of a box
// staggered. Only rows are in this view, so every byte counted is theirs.
func TestViewRowsTraffic(t *testing.T) {
	const boxes, perBox = 10, 5
	const minutes = 30
	const runs, lingers = 10 * 60, 60 // seconds
	type guest struct {
		name string
		up   viewTold
		down viewTold
		rows map[string]wire.ViewRow
	}
	gs := make([]*guest, boxes)
	for i := range gs {
		gs[i] = &guest{name: fmt.Sprintf("box%02d", i)}
	}
	// rowAt is box i's j-th row slot at second sec: each slot cycles through
	// runs+lingers seconds, offset so the slots of the network are spread.
	rowAt := func(i, j, sec int) (wire.ViewRow, bool) {
		cycle := runs + lingers + 1
		off := (i*perBox + j) * cycle / (boxes * perBox)
		n, in := (sec+off)/cycle, (sec+off)%cycle
		r := wire.ViewRow{ID: fmt.Sprintf("ws-%010d", n*100+j), Box: gs[i].name, Label: "Repository", Agent: "claude",
			Handle: fmt.Sprintf("%s-Repository-%02d", gs[i].name, j), Since: seen(t0.Add(time.Duration(sec-in) * time.Second))}
		code := 0
		switch {
		case in == cycle-1:
			return r, false // removed
		case in == 0:
			r.Phase = "Starting"
		case in <= runs:
			r.Phase = "Ready"
		default:
			r.Phase, r.ExitCode = "Stopped", &code
		}
		return r, true
	}
	size := func(ev wire.LinkView) int {
		n := 0
		for _, p := range SplitView(ev) {
			b, _ := json.Marshal(p)
			n += len(b)
		}
		return n
	}
	var upEvents, upBytes, downEvents, downBytes, upRows, downRows int
	end := t0.Add(minutes * time.Minute)
	nextDir, nextHub := t0, t0
	for at := t0; at.Before(end); at = at.Add(500 * time.Millisecond) {
		sec := int(at.Sub(t0) / time.Second)
		for i, g := range gs {
			g.rows = map[string]wire.ViewRow{}
			for j := range perBox {
				if r, ok := rowAt(i, j, sec); ok {
					g.rows[r.Key()] = r
				}
			}
		}
		if !at.Before(nextDir) {
			nextDir = nextDir.Add(directoryEvery)
			for _, g := range gs {
				if ev, ok := g.up.next(nil, g.rows, nil, at); ok {
					g.up.told(ev, at)
					if !ev.Full {
						upEvents++
						upBytes += size(ev)
						upRows += len(ev.Rows) + len(ev.RowsRemoved)
					}
				}
			}
		}
		if !at.Before(nextHub) {
			nextHub = nextHub.Add(viewEvery)
			for _, g := range gs {
				merged := map[string]wire.ViewRow{}
				for _, o := range gs {
					if o != g {
						maps.Copy(merged, o.up.rows)
					}
				}
				if ev, ok := g.down.next(nil, merged, nil, at); ok {
					g.down.told(ev, at)
					if !ev.Full {
						downEvents++
						downBytes += size(ev)
						downRows += len(ev.Rows) + len(ev.RowsRemoved)
					}
				}
			}
		}
	}
	var all []wire.ViewRow
	for _, g := range gs {
		all = append(all, valuesOf(g.rows)...)
	}
	one := wire.LinkView{Rows: all[:1]}
	full := size(wire.LinkView{Full: true, Rows: all})
	t.Logf("50 rows on 10 boxes, %d minutes (each row: 10 min Ready, 1 min Stopped, then replaced):", minutes)
	t.Logf("  one row's change as an event: %d bytes", size(one))
	t.Logf("  guest -> hub: %.2f events/min per guest, %.0f bytes/event, %.1f rows/event",
		float64(upEvents)/minutes/boxes, float64(upBytes)/float64(upEvents), float64(upRows)/float64(upEvents))
	t.Logf("  hub -> guest: %.2f events/min per guest, %.0f bytes/event, %.1f rows/event",
		float64(downEvents)/minutes/boxes, float64(downBytes)/float64(downEvents), float64(downRows)/float64(downEvents))
	t.Logf("  hub total: %.0f bytes/min out, %.0f bytes/min in; every row in a new link's snapshot: %d bytes",
		float64(downBytes)/minutes, float64(upBytes)/minutes, full)
	if per := float64(downEvents) / minutes / boxes; per > 60 {
		t.Fatalf("the hub sent %.1f events a minute to each guest, over one a second", per)
	}
	if upEvents == 0 || downEvents == 0 {
		t.Fatal("no row change travelled")
	}
}

// viewPeer is a linked box as the hub's router and view see it, for a test
// that drives the view's merge and push without a network: it answers no call.
type viewPeer struct {
	box  string
	done chan struct{}
}

func (p *viewPeer) Box() string           { return p.box }
func (p *viewPeer) Done() <-chan struct{} { return p.done }
func (p *viewPeer) Ticks() bool           { return false }
func (p *viewPeer) RTT() time.Duration    { return 0 }
func (p *viewPeer) Call(context.Context, string, any, any) error {
	return errors.New("a view-only peer answers no call")
}
func (p *viewPeer) File(context.Context, wire.CommFile) (wire.CommFiled, error) {
	return wire.CommFiled{}, errors.New("a view-only peer files nothing")
}
func (p *viewPeer) Go(_ string, _, _ any, done func(error)) func() {
	done(errors.New("a view-only peer answers no call"))
	return func() {}
}
