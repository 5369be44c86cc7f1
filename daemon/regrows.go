package daemon

import (
	"fmt"

	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// registryRows answers registry.rows from the cached parse (regCache), which
// is as fresh as a read: the file is looked at for each request and parsed
// again when it changed. An unreadable registry is refused, never answered
// with no rows, so a client never takes it for "absent".
func (d *Daemon) registryRows(req wire.RegistryRows) (any, error) {
	doc, err := d.reg.read()
	if err != nil {
		return nil, unreadable(wire.CodeUnreadable, "no row can be read", err)
	}
	rows, err := doc.RowsJSON(req.Names)
	if err != nil {
		return nil, fmt.Errorf("encode the registry's rows: %w", err)
	}
	return wire.RegistryRowsOK{ProtocolVersion: doc.ProtocolVersion, Rows: rows}, nil
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
