// Package regcache keeps the daemon's last parse of the registry, so a
// large registry is parsed once a change, not once a reader and tick, and a
// change of one row (a hook's write) is decoded as that row alone.
package regcache

import (
	"sync"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// Cache keeps the daemon's last registry parse. Each reader (a filing batch
// just before its append, the wake, the stamper, the directory) still looks at
// the registry, as fresh as registry.Read, but a registry that is the same file
// with the same size and modification time as at the last parse is not read and
// parsed again (home.Stamp): an idle daemon over 100,000 entries parsed them on
// every tick of every reader. A file that changed is read again from the last
// parse (registry.ReadSnapshot), so a write of one row in place decodes that
// row only. Any failure drops the kept parse and reads as registry.Read does.
// The Doc it answers is shared between batches and never changed.
type Cache struct {
	h home.Home

	mu   sync.Mutex
	path string     // the registry's
	file home.Stamp // the registry that view was parsed from; absent when none
	snap *registry.Snapshot
	view *View

	reads, parses int // for tests (Counts): how often it was asked, and how often it read the file again
}

// Read is the registry as registry.Read answers it now.
func (c *Cache) Read() (*registry.Doc, error) {
	v, err := c.View()
	if err != nil {
		return nil, err
	}
	return v.Doc, nil
}

// View is the registry as Read answers it, with the lookups the daemon's
// ticks make of it.
func (c *Cache) View() (*View, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.path == "" {
		c.path = c.h.Registry()
	}
	c.reads++
	// The look comes before the read: a registry replaced between the two is
	// kept with the older look's attributes, so the next batch reads it again.
	file := home.StampOf(c.path)
	if !file.Absent() && file.Same(c.file) {
		return c.view, nil
	}
	snap, view := c.snap, c.view
	c.file, c.snap, c.view = home.Stamp{}, nil, nil
	c.parses++
	next, ch, err := registry.ReadSnapshot(c.h, snap)
	if err != nil {
		return nil, err
	}
	c.file, c.snap, c.view = file, next, view.next(next.Doc, ch)
	return c.view, nil
}

// New is a cache of h's registry, empty until the first Read.
func New(h home.Home) *Cache { return &Cache{h: h} }

// Counts is how often the cache was read, and how often it read the file again.
func (c *Cache) Counts() (reads, parses int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads, c.parses
}
