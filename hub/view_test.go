package hub

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/wire"
)

func entry(handle, box string) wire.ViewEntry {
	return wire.ViewEntry{Handle: handle, Box: box, Live: true, State: "idle"}
}

// TestViewTakesOnlyHeldHandles: a box's view entries count only for the
// handles its link holds in the directory, under its own name; a handle it
// drops, or a link that ends, takes its entries out of the view.
func TestViewTakesOnlyHeldHandles(t *testing.T) {
	r := New(Config{})
	ga, gb := newBox("ga", files), newBox("gb", files)
	r.Add(ga)
	r.Add(gb)
	if err := r.Directory(ga, wire.LinkDirectory{Full: true, Added: []string{"alice"}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Directory(gb, wire.LinkDirectory{Full: true, Added: []string{"bob"}}); err != nil {
		t.Fatal(err)
	}
	v := r.View()
	v.SetOwn(map[string]wire.ViewEntry{"hank": entry("hank", "hb")}, nil)

	// gb publishes bob (its own, but named under another box) and alice (ga's).
	if refused := v.Apply(gb, wire.LinkView{Full: true, Entries: []wire.ViewEntry{entry("bob", "hb"), entry("alice", "gb")}}); refused != 1 {
		t.Fatalf("gb's claim on ga's alice: %d entries refused, want 1", refused)
	}
	v.Apply(ga, wire.LinkView{Full: true, Entries: []wire.ViewEntry{entry("alice", "ga")}})
	all := v.Entries(nil, true)
	if got := slices.Sorted(maps.Keys(all)); !slices.Equal(got, []string{"alice", "bob", "hank"}) {
		t.Fatalf("the merged view holds %v", got)
	}
	if all["bob"].Box != "gb" || all["alice"].Box != "ga" {
		t.Fatalf("entries are not under the box that holds them: bob on %q, alice on %q", all["bob"].Box, all["alice"].Box)
	}
	if got := slices.Sorted(maps.Keys(v.Entries(ga, true))); !slices.Equal(got, []string{"bob", "hank"}) {
		t.Fatalf("the view told to ga holds %v; ga's own alice is not news to it", got)
	}
	if _, ok := v.Entries(nil, false)["hank"]; ok {
		t.Fatal("the view without the hub's own entries still holds hank")
	}

	r.Directory(gb, wire.LinkDirectory{Removed: []string{"bob"}})
	if _, ok := v.Entries(nil, true)["bob"]; ok {
		t.Fatal("bob left gb's directory and is still in the view")
	}
	r.Directory(gb, wire.LinkDirectory{Added: []string{"bob"}})
	close(ga.done)
	r.Remove(ga)
	if _, ok := v.Entries(nil, true)["alice"]; ok {
		t.Fatal("ga's link ended and its alice is still in the view")
	}
	if refused := v.Apply(ga, wire.LinkView{Entries: []wire.ViewEntry{entry("alice", "ga")}}); refused != 0 || len(v.Entries(nil, true)) != 2 {
		t.Fatal("an event of an ended link was taken")
	}
}

// TestViewClipsText: a box cannot make its entries, and so every guest's copy,
// as large as it likes.
func TestViewClipsText(t *testing.T) {
	r := New(Config{})
	ga := newBox("ga", files)
	r.Add(ga)
	r.Directory(ga, wire.LinkDirectory{Full: true, Added: []string{"alice"}})
	e := entry("alice", "ga")
	e.Summary = strings.Repeat("é", 4000)
	e.Expertise = make([]string, 1000)
	r.View().Apply(ga, wire.LinkView{Entries: []wire.ViewEntry{e}})
	got := r.View().Entries(nil, false)["alice"]
	if len(got.Summary) > maxViewText || !strings.HasPrefix(e.Summary, got.Summary) || len(got.Expertise) != maxViewExpertise {
		t.Fatalf("summary of %d bytes, %d expertise words kept", len(got.Summary), len(got.Expertise))
	}
}

func row(id, box, handle, phase string) wire.ViewRow {
	return wire.ViewRow{ID: id, Box: box, Label: "api", Phase: phase, Agent: "claude", Handle: handle, Since: "2026-06-01T12:00:00Z"}
}

// TestViewTakesRowsOnlyUnderTheirBox: a box's rows are taken only under its
// own name (a row it publishes under another box's name is dropped, and so
// cannot replace or add to that box's rows), a row names only a handle its
// box's link holds, and a link that ends, or is replaced by a newer one, takes
// its rows out of the view.
func TestViewTakesRowsOnlyUnderTheirBox(t *testing.T) {
	r := New(Config{})
	ga, gb := newBox("ga", files), newBox("gb", files)
	r.Add(ga)
	r.Add(gb)
	r.Directory(ga, wire.LinkDirectory{Full: true, Added: []string{"alice"}})
	r.Directory(gb, wire.LinkDirectory{Full: true, Added: []string{"bob"}})
	v := r.View()
	v.SetOwn(nil, map[string]wire.ViewRow{"hb/w1": row("w1", "hb", "hank", "Ready")})

	if refused := v.Apply(ga, wire.LinkView{Full: true, Rows: []wire.ViewRow{row("w1", "ga", "alice", "Ready")}}); refused != 0 {
		t.Fatalf("ga's own row: %d refused", refused)
	}
	// gb publishes its own row, a row under ga's name (to replace ga's w1 with
	// a fake) and one under the hub's name: only its own is taken.
	fake := row("w1", "ga", "alice", "Stopped")
	if refused := v.Apply(gb, wire.LinkView{Full: true, Rows: []wire.ViewRow{row("w2", "gb", "bob", "Starting"), fake, row("w9", "hb", "", "Ready")}}); refused != 2 {
		t.Fatalf("gb's rows under other boxes' names: %d refused, want 2", refused)
	}
	all := v.Rows(nil, true)
	if got := slices.Sorted(maps.Keys(all)); !slices.Equal(got, []string{"ga/w1", "gb/w2", "hb/w1"}) {
		t.Fatalf("the merged rows are %v", got)
	}
	if all["ga/w1"].Phase != "Ready" {
		t.Fatalf("ga's w1 reads %+v: gb's row under ga's name was taken", all["ga/w1"])
	}
	if got := slices.Sorted(maps.Keys(v.Rows(ga, true))); !slices.Equal(got, []string{"gb/w2", "hb/w1"}) {
		t.Fatalf("the rows told to ga are %v; its own are not news to it", got)
	}
	if got := slices.Sorted(maps.Keys(v.Rows(nil, false))); !slices.Equal(got, []string{"ga/w1", "gb/w2"}) {
		t.Fatalf("the rows without the hub's own are %v", got)
	}

	// A row keeps naming its handle only while its box's link holds it.
	r.Directory(ga, wire.LinkDirectory{Removed: []string{"alice"}})
	if h := v.Rows(nil, true)["ga/w1"].Handle; h != "" {
		t.Fatalf("ga's row still names @%s, which ga no longer holds", h)
	}

	// A plain event removes and changes rows.
	v.Apply(gb, wire.LinkView{RowsRemoved: []string{"gb/w2"}, Rows: []wire.ViewRow{row("w3", "gb", "bob", "Ready")}})
	if got := slices.Sorted(maps.Keys(v.Rows(nil, false))); !slices.Equal(got, []string{"ga/w1", "gb/w3"}) {
		t.Fatalf("after gb removed w2 and started w3: %v", got)
	}

	// gb links again: the older link's rows no longer count, and when it ends
	// they are gone; the newer link publishes its own.
	gb2 := newBox("gb", files)
	r.Add(gb2)
	if _, ok := v.Rows(nil, false)["gb/w3"]; ok {
		t.Fatal("the rows of gb's replaced link are still in the view")
	}
	close(gb.done)
	r.Remove(gb)
	close(ga.done)
	r.Remove(ga)
	if got := slices.Sorted(maps.Keys(v.Rows(nil, true))); !slices.Equal(got, []string{"hb/w1"}) {
		t.Fatalf("after ga's and gb's links ended the rows are %v", got)
	}
	if refused := v.Apply(ga, wire.LinkView{Rows: []wire.ViewRow{row("w1", "ga", "", "Ready")}}); refused != 0 || len(v.Rows(nil, false)) != 0 {
		t.Fatal("a row of an ended link was taken")
	}
}

// TestViewBoundsRows: a box cannot publish more than MaxRows rows, nor rows
// with text past the bound.
func TestViewBoundsRows(t *testing.T) {
	r := New(Config{})
	ga := newBox("ga", files)
	r.Add(ga)
	var rows []wire.ViewRow
	for i := range MaxRows + 10 {
		rows = append(rows, row(fmt.Sprintf("w%d", i), "ga", "", "Ready"))
	}
	rows[0].Label = strings.Repeat("é", 4000)
	if refused := r.View().Apply(ga, wire.LinkView{Full: true, Rows: rows}); refused != 10 {
		t.Fatalf("%d rows refused past MaxRows, want 10", refused)
	}
	got := r.View().Rows(nil, false)
	if len(got) != MaxRows {
		t.Fatalf("%d rows kept, want %d", len(got), MaxRows)
	}
	if l := got["ga/w0"].Label; len(l) > maxViewText || !strings.HasPrefix(rows[0].Label, l) {
		t.Fatalf("a label of %d bytes kept", len(l))
	}
	// A row already held may still change at the bound.
	if refused := r.View().Apply(ga, wire.LinkView{Rows: []wire.ViewRow{row("w1", "ga", "", "Stopped")}}); refused != 0 || r.View().Rows(nil, false)["ga/w1"].Phase != "Stopped" {
		t.Fatal("a change to a held row at the bound was refused")
	}
}
