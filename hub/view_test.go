package hub

import (
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
	v.SetOwn(map[string]wire.ViewEntry{"hank": entry("hank", "hb")})

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
