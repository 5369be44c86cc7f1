package topology

import (
	"errors"
	"io/fs"
	"log/slog"

	"github.com/sotcomm/sotd/machine"
)

// Resolve reads hosts.toml at hostsPath ("" when there is no place for one) and
// applies the protocol's who-is-hub rule for box host over the comm home at
// homeDir. What the file says wrong is logged here, once, at start.
func Resolve(homeDir, host, hostsPath string, log *slog.Logger) Role {
	var t *Topology
	var err error
	if hostsPath != "" {
		var warns []Warning
		t, warns, err = Load(hostsPath)
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
	own, derr := machine.OwnDisk(homeDir)
	if derr != nil {
		log.Warn("whether the comm home is on this machine's own disk could not be told, so it is taken not to be", "home", homeDir, "err", derr)
	}
	return RoleOf(t, err, host, own)
}
