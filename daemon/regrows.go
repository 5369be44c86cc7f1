package daemon

import (
	"fmt"

	"github.com/sotcomm/sotd/daemon/internal/refuse"
	"github.com/sotcomm/sotd/wire"
)

// registryRows answers registry.rows from the daemon's index of the registry
// (regcache.Index), which is as fresh as a read: the file is looked at for
// each request and walked again when it changed. An unreadable registry is
// refused, never answered with no rows, so a client never takes it for
// "absent".
func (d *Daemon) registryRows(req wire.RegistryRows) (any, error) {
	x, err := d.rowIndex.Read()
	if err != nil {
		return nil, refuse.Unreadable(wire.CodeUnreadable, "no row can be read", err)
	}
	rows, err := x.Rows(req.Names)
	if err != nil {
		return nil, fmt.Errorf("encode the registry's rows: %w", err)
	}
	return wire.RegistryRowsOK{ProtocolVersion: x.Version(), Rows: rows}, nil
}
