package daemon

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
)

// The filing path parses the registry once while it stays the same file, and
// again after any write: a new handle is seen by the next batch, and a registry
// that became unreadable is unreadable, never the kept parse.
func TestRegCacheParsesAgainOnlyAfterAChange(t *testing.T) {
	h := newHome(t)
	c := &regCache{h: h}
	first, err := c.read()
	if err != nil {
		t.Fatal(err)
	}
	if again, err := c.read(); err != nil || again != first {
		t.Fatalf("an unchanged registry was parsed again (%p, then %p, %v)", first, again, err)
	}
	ls := registry.Stamp(testNow)
	writeRegistry(t, h, map[string]string{"alice": ls, "bob": ls, "carol": ls})
	doc, err := c.read()
	if err != nil || doc == first || doc.Agents["carol"] == nil {
		t.Fatalf("after a join of carol the batch read %v, %v; want a fresh parse that lists carol", doc, err)
	}
	if err := home.WriteAtomic(h.Registry(), []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	if doc, err := c.read(); !errors.Is(err, registry.ErrUnreadable) {
		t.Fatalf("a registry made unreadable read as %v, %v; want ErrUnreadable", doc, err)
	}
	if err := os.Remove(h.Registry()); err != nil {
		t.Fatal(err)
	}
	if doc, err := c.read(); err == nil {
		t.Fatalf("a removed registry read as %v", doc)
	}
}

// The look never goes through a symlink, as home.OpenFile opens none: a
// registry moved aside and linked back in its place is the same file, but it is
// read again as registry.Read reads it, which refuses the link, never answered
// from the kept parse.
func TestRegCacheLooksAtNoSymlink(t *testing.T) {
	h := newHome(t)
	c := &regCache{h: h}
	first, err := c.read()
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
	if doc, err := c.read(); !errors.Is(err, registry.ErrUnreadable) || !strings.Contains(fmt.Sprint(err), "registry.json is a symlink") || doc != nil {
		t.Fatalf("a registry that is a symlink read as %p, %v; want it refused as a symlink, not the kept %p", doc, err, first)
	}
}

// counts is how often c was asked and how often it parsed.
func (c *regCache) counts() (reads, parses int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads, c.parses
}

// An idle daemon's readers (the wake, the dialog watch, the stamper, the rows'
// listing) share one parse of an unchanged registry: before, each parsed it on
// each of its ticks.
func TestAnIdleDaemonParsesAnUnchangedRegistryOnce(t *testing.T) {
	var d *Daemon
	startRig(t, func(x *Daemon) { d = x; x.dialogEvery = 50 * time.Millisecond })
	testutil.Eventually(t, 10*time.Second, "the daemon's readers to ask for the registry a few times", func() bool {
		reads, _ := d.reg.counts()
		return reads >= 5
	})
	if _, err := d.rows.list(); err != nil {
		t.Fatal(err)
	}
	if reads, parses := d.reg.counts(); parses != 1 || d.rows.reg != d.reg {
		t.Fatalf("an unchanged registry asked for %d times was parsed %d times (the rows share the cache: %v); want once", reads, parses, d.rows.reg == d.reg)
	}
}
