// Package regcache keeps the daemon's last parse of the registry, so a
// large registry is parsed once a change, not once a reader and tick.
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
// every tick of every reader. Any failure drops the kept parse and
// reads as registry.Read does.
// The Doc it answers is shared between batches and never changed.
type Cache struct {
	h home.Home

	mu   sync.Mutex
	path string     // the registry's
	file home.Stamp // the registry that doc was parsed from; absent when none
	doc  *registry.Doc

	reads, parses int // for tests (Counts): how often it was asked, and how often it parsed
}

func (c *Cache) Read() (*registry.Doc, error) {
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
		return c.doc, nil
	}
	c.file, c.doc = home.Stamp{}, nil
	c.parses++
	doc, err := registry.Read(c.h)
	if err != nil {
		return nil, err
	}
	c.file, c.doc = file, doc
	return doc, nil
}

// New is a cache of h's registry, empty until the first Read.
func New(h home.Home) *Cache { return &Cache{h: h} }

// Counts is how often the cache was read, and how often it parsed.
func (c *Cache) Counts() (reads, parses int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads, c.parses
}
