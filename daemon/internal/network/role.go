package network

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/sotcomm/sotd/topology"
)

// CheckHosts refuses to start a daemon on a hosts.toml that is there but does
// not load. The protocol's rule would make it a hub or guest of no topology,
// which links to nothing and then answers every send for another box with a
// misleading "no box knows that handle"; a start that fails names the file and
// line instead. An absent file is a standalone hub, as it always was.
func CheckHosts(hostsPath string) error {
	if hostsPath == "" {
		return nil
	}
	_, _, err := topology.Load(hostsPath)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("hosts.toml at %s is not usable, so this box cannot tell its hub:\n%v\nfix it (hosts.toml.example shows every key), or remove it to run this box as a standalone hub, and start the daemon again", hostsPath, err)
}
