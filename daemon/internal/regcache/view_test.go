package regcache

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/rigtest"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// The view's lookups (which handles each row holds, and each box's bound
// handles) are those of a fresh read after every kind of write: a one-row
// write that keeps the row's binding, one that moves it, a join, a leave, a
// rewrite by another client, and a torn registry, which reads as unreadable
// and never as the last view.
func TestViewMatchesAFreshReadAfterEachWrite(t *testing.T) {
	h := rigtest.NewHome(t)
	c := New(h)
	now := time.Now()
	bind := func(name, host, row string) func() error {
		return func() error {
			return registry.Mark(h, name, registry.TouchWait, func(e *registry.Entry) error { e.Host, e.WorkspaceID = host, row; return nil })
		}
	}
	writes := []struct {
		name string
		do   func() error
	}{
		{"bob bound to w1", bind("bob", "box", "w1")},
		{"carol bound to w1 too", bind("carol", "box", "w1")},
		{"a touch of bob", func() error { return registry.Touch(h, "bob", now, registry.TouchWait) }},
		{"carol's status", func() error {
			return registry.WriteStatus(h, "carol", registry.Status{Verb: registry.VerbWorking, Text: "tests", HasText: true}, now, registry.TouchWait)
		}},
		{"carol moved to w2", bind("carol", "box", "w2")},
		{"stale bound on another box", bind("stale", "other", "w1")},
		{"a join bound to w2", func() error {
			return registry.Update(h, registry.TouchWait, func(d *registry.Doc) error {
				d.Agents["dave"] = &registry.Entry{Host: "box", WorkspaceID: "w2", LastSeen: registry.Stamp(now)}
				return nil
			})
		}},
		{"bob leaves", func() error {
			return registry.Update(h, registry.TouchWait, func(d *registry.Doc) error { delete(d.Agents, "bob"); return nil })
		}},
		{"carol unbound", bind("carol", "box", "")},
		{"a rewrite by another client", func() error {
			rigtest.WriteRegistry(t, h, map[string]string{"erin": registry.Stamp(now)})
			return nil
		}},
	}
	live := registry.LiveAt(now)
	for _, w := range writes {
		before, err := c.View() // the view before the write, to read from
		if err != nil {
			t.Fatal(err)
		}
		before.Live(live) // its live index made, for the next view to carry
		if err := w.do(); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		got, err := c.View()
		if err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		want, err := registry.Read(h)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Doc, want) {
			t.Errorf("%s: the view's Doc is not a fresh read's", w.name)
		}
		fresh := viewOf(want)
		if !reflect.DeepEqual(got.bound, fresh.bound) || !reflect.DeepEqual(got.held, fresh.held) {
			t.Errorf("%s: the view binds %v (held %v); a fresh read %v (held %v)", w.name, got.bound, got.held, fresh.bound, fresh.held)
		}
		for k, hs := range fresh.bound {
			if !slices.Equal(got.Bound(k.host, k.id), hs) {
				t.Errorf("%s: Bound(%s, %s) is %v; want %v", w.name, k.host, k.id, got.Bound(k.host, k.id), hs)
			}
		}
		if l, fl := got.Live(live), fresh.Live(live); !slices.Equal(l, fl) {
			t.Errorf("%s: the view's live are %v; a fresh read's %v", w.name, l, fl)
		}
		for _, host := range slices.Collect(maps.Keys(fresh.held)) {
			if !slices.Equal(got.Held(host), fresh.held[host]) {
				t.Errorf("%s: Held(%s) is %v; want %v", w.name, host, got.Held(host), fresh.held[host])
			}
		}
	}
	if err := home.WriteAtomic(h.Registry(), []byte(`{"agents": {"erin": {"host": "box"`)); err != nil {
		t.Fatal(err)
	}
	if v, err := c.View(); !errors.Is(err, registry.ErrUnreadable) || v != nil {
		t.Fatalf("a torn registry's view is %v, %v; want ErrUnreadable", v, err)
	}
}
