package regcache

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/daemon/internal/rigtest"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// The filing path parses the registry once while it stays the same file, and
// again after any write: a new handle is seen by the next batch, and a registry
// that became unreadable is unreadable, never the kept parse.
func TestRegCacheParsesAgainOnlyAfterAChange(t *testing.T) {
	h := rigtest.NewHome(t)
	c := New(h)
	first, err := c.Read()
	if err != nil {
		t.Fatal(err)
	}
	if again, err := c.Read(); err != nil || again != first {
		t.Fatalf("an unchanged registry was parsed again (%p, then %p, %v)", first, again, err)
	}
	ls := registry.Stamp(rigtest.Now)
	rigtest.WriteRegistry(t, h, map[string]string{"alice": ls, "bob": ls, "carol": ls})
	doc, err := c.Read()
	if err != nil || doc == first || doc.Agents["carol"] == nil {
		t.Fatalf("after a join of carol the batch read %v, %v; want a fresh parse that lists carol", doc, err)
	}
	if err := home.WriteAtomic(h.Registry(), []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	if doc, err := c.Read(); !errors.Is(err, registry.ErrUnreadable) {
		t.Fatalf("a registry made unreadable read as %v, %v; want ErrUnreadable", doc, err)
	}
	if err := os.Remove(h.Registry()); err != nil {
		t.Fatal(err)
	}
	if doc, err := c.Read(); err == nil {
		t.Fatalf("a removed registry read as %v", doc)
	}
}

// The look never goes through a symlink, as home.OpenFile opens none: a
// registry moved aside and linked back in its place is the same file, but it is
// read again as registry.Read reads it, which refuses the link, never answered
// from the kept parse.
func TestRegCacheLooksAtNoSymlink(t *testing.T) {
	h := rigtest.NewHome(t)
	c := New(h)
	first, err := c.Read()
	if err != nil {
		t.Fatal(err)
	}
	aside := h.Registry() + ".aside"
	if err := os.Rename(h.Registry(), aside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(aside, h.Registry()); err != nil {
		t.Fatal(err)
	}
	if doc, err := c.Read(); !errors.Is(err, registry.ErrUnreadable) || !strings.Contains(fmt.Sprint(err), "registry.json is a symlink") || doc != nil {
		t.Fatalf("a registry that is a symlink read as %p, %v; want it refused as a symlink, not the kept %p", doc, err, first)
	}
}
