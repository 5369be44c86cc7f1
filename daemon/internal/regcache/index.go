package regcache

import (
	"sync"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// Index keeps the daemon's last registry.Index, for registry.rows, by
// Cache's rule: the file is looked at for each read (the look before the
// read) and read again when it changed; any failure drops the kept index.
// It is not Cache's whole parse: a session's hooks write the registry at each
// turn's start and end, and the first ask after a write would wait for every
// row of a large registry to be decoded; an index only finds them, and the
// asker decodes the rows it asked for. A write of one row in place is walked
// as that row alone (registry.ReadIndexSince).
type Index struct {
	h home.Home

	mu   sync.Mutex
	file home.Stamp // the registry x was made from; absent when none
	x    *registry.Index
}

// NewIndex is an empty Index of h's registry.
func NewIndex(h home.Home) *Index { return &Index{h: h} }

// Read answers the index of the registry as it is now, as registry.ReadIndex.
func (c *Index) Read() (*registry.Index, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	file := home.StampOf(c.h.Registry())
	if !file.Absent() && file.Same(c.file) {
		return c.x, nil
	}
	last := c.x
	c.file, c.x = home.Stamp{}, nil
	x, _, err := registry.ReadIndexSince(c.h, last)
	if err != nil {
		return nil, err
	}
	c.file, c.x = file, x
	return x, nil
}
