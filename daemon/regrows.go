package daemon

import (
	"fmt"
	"sync"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// registryRows answers registry.rows from the daemon's index of the registry
// (rowIndex), which is as fresh as a read: the file is looked at for each
// request and walked again when it changed. An unreadable registry is
// refused, never answered with no rows, so a client never takes it for
// "absent".
func (d *Daemon) registryRows(req wire.RegistryRows) (any, error) {
	x, err := d.rowIndex.read()
	if err != nil {
		return nil, unreadable(wire.CodeUnreadable, "no row can be read", err)
	}
	rows, err := x.Rows(req.Names)
	if err != nil {
		return nil, fmt.Errorf("encode the registry's rows: %w", err)
	}
	return wire.RegistryRowsOK{ProtocolVersion: x.Version(), Rows: rows}, nil
}

// rowIndex keeps the daemon's last registry.Index, for registry.rows. It is
// not regCache's whole parse: a session's hooks write the registry at each
// turn's start and end, and the next ask after a write would wait for every
// row of a large registry to be decoded; an index only finds them (a tenth of
// the cost), and the rows asked for are decoded by the asker.
type rowIndex struct {
	h home.Home

	mu   sync.Mutex
	file home.Stamp // the registry x was made from; absent when none
	x    *registry.Index
}

// read is regCache.read's rule for an index: the look before the read, and
// any failure drops the kept index.
func (c *rowIndex) read() (*registry.Index, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	file := home.StampOf(c.h.Registry())
	if !file.Absent() && file.Same(c.file) {
		return c.x, nil
	}
	c.file, c.x = home.Stamp{}, nil
	x, err := registry.ReadIndex(c.h)
	if err != nil {
		return nil, err
	}
	c.file, c.x = file, x
	return x, nil
}

// lookup is registry.Lookup from the cached parse, for the daemon's own
// readers of one row (the wake's), with Lookup's three answers.
func (c *regCache) lookup(handle string) (*registry.Entry, bool, error) {
	doc, err := c.read()
	if err != nil {
		return nil, false, err
	}
	e, ok := doc.Agents[handle]
	return e, ok, nil
}
