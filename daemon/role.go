package daemon

import (
	"errors"
	"io/fs"
	"log/slog"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/machine"
	"github.com/sotcomm/sotd/topology"
)

// roleOf reads hosts.toml at hostsPath ("" when there is no place for one) and
// applies the protocol's who-is-hub rule for box host over h. What the file says
// wrong is logged here, once, at start.
func roleOf(h home.Home, host, hostsPath string, log *slog.Logger) topology.Role {
	var t *topology.Topology
	var err error
	if hostsPath != "" {
		var warns []topology.Warning
		t, warns, err = topology.Load(hostsPath)
		for _, w := range warns {
			log.Warn("hosts.toml", "warning", w.String())
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			log.Error("hosts.toml is not usable", "path", hostsPath, "err", err)
		}
	}
	own, derr := machine.OwnDisk(h.Dir)
	if derr != nil {
		log.Warn("whether the comm home is on this machine's own disk could not be told, so it is taken not to be", "home", h.Dir, "err", derr)
	}
	return topology.RoleOf(t, err, host, own)
}
