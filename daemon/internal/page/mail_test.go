package page

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/rigtest"
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// mailPage is a page over a fresh home whose registry lists handles s00000 to
// s<n-1> (as set by the watch's read of it), and a filer of that home.
func mailPage(t testing.TB, n int) (*Page, *filer.Filer) {
	t.Helper()
	h := rigtest.NewHome(t)
	v := New(Config{Home: h, Host: "box", Now: func() time.Time { return rigtest.Now }})
	doc := &registry.Doc{ProtocolVersion: 1, Agents: map[string]*registry.Entry{}}
	for i := range n {
		doc.Agents[fmt.Sprintf("s%05d", i)] = &registry.Entry{Host: "box", LastSeen: registry.Stamp(rigtest.Now)}
	}
	v.setAgents(doc)
	return v, filer.New(h)
}

func (v *Page) unreadOf(h string) (int, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	n, ok := v.unread[h]
	return n, ok
}

// TestLookMailCountsOnlyInboxesAndSeesNewOnes: each listed handle is
// counted, none for a handle never mailed, and an inbox made, grown, read or
// removed after a look is counted anew at the next.
func TestLookMailCountsOnlyInboxesAndSeesNewOnes(t *testing.T) {
	v, f := mailPage(t, 3)
	fileAt(t, f, "x", "s00000", "one", rigtest.Now)
	fileAt(t, f, "x", "s00000", "two", rigtest.Now)
	counted := map[string]mailCount{}
	v.lookMail(f, counted)
	want := func(step string, counts map[string]int) {
		t.Helper()
		for h, n := range counts {
			if got, ok := v.unreadOf(h); !ok || got != n {
				t.Fatalf("%s: unread of %s = %d (published %v), want %d", step, h, got, ok, n)
			}
		}
	}
	want("first look", map[string]int{"s00000": 2, "s00001": 0, "s00002": 0})

	fileAt(t, f, "x", "s00001", "new inbox", rigtest.Now)
	fileAt(t, f, "x", "s00000", "three", rigtest.Now)
	v.lookMail(f, counted)
	want("after filing", map[string]int{"s00000": 3, "s00001": 1, "s00002": 0})

	r, err := f.Begin("s00000")
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Each(func(int, []byte) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit("s00000", b); err != nil {
		t.Fatal(err)
	}
	inbox, err := f.Home.HandlePath(home.Inbox, "s00001")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(inbox); err != nil {
		t.Fatal(err)
	}
	v.lookMail(f, counted)
	want("after a read and a removed inbox", map[string]int{"s00000": 0, "s00001": 0, "s00002": 0})

	// A handle that leaves the registry is forgotten, so it is counted again
	// when it joins again.
	left := &registry.Doc{ProtocolVersion: 1, Agents: map[string]*registry.Entry{}}
	for _, h := range []string{"s00000", "s00001"} {
		left.Agents[h] = &registry.Entry{Host: "box", LastSeen: registry.Stamp(rigtest.Now)}
	}
	v.setAgents(left)
	v.lookMail(f, counted)
	if _, ok := counted["s00002"]; ok || len(counted) != 2 {
		t.Fatalf("counted after s00002 left = %v, want s00000 and s00001 only", slices.Collect(maps.Keys(counted)))
	}
}
