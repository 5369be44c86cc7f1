package daemon

import (
	"errors"
	"fmt"
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
		switch {
		case errors.Is(err, fs.ErrNotExist):
			log.Info("no hosts.toml, so this daemon is a standalone hub and links to no other box; to link boxes, write one there (hosts.toml.example shows every key) and restart", "looked_at", hostsPath)
		case err != nil:
			log.Error("hosts.toml is not usable", "path", hostsPath, "err", err)
		}
	}
	own, derr := machine.OwnDisk(h.Dir)
	if derr != nil {
		log.Warn("whether the comm home is on this machine's own disk could not be told, so it is taken not to be", "home", h.Dir, "err", derr)
	}
	return topology.RoleOf(t, err, host, own)
}

// checkHosts refuses to start a daemon on a hosts.toml that is there but does
// not load. The protocol's rule would make it a hub or guest of no topology,
// which links to nothing and then answers every send for another box with a
// misleading "no box knows that handle"; a start that fails names the file and
// line instead. An absent file is a standalone hub, as it always was.
func checkHosts(hostsPath string) error {
	if hostsPath == "" {
		return nil
	}
	_, _, err := topology.Load(hostsPath)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("hosts.toml at %s is not usable, so this box cannot tell its hub:\n%v\nfix it (hosts.toml.example shows every key), or remove it to run this box as a standalone hub, and start the daemon again", hostsPath, err)
}
