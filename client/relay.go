package client

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/sotcomm/sotd/topology"
)

// RelayEndpoint is the hub's link address as the hosts.toml at path names it:
// where the reference shell client hands a line it cannot file itself. A box
// with no hosts.toml is a standalone hub, and one whose hosts.toml does not
// load names no hub: neither has a relay endpoint, and the error says which.
func RelayEndpoint(path string) (string, error) {
	t, _, err := topology.Load(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("there is no hosts.toml at %s, so this box is a standalone hub and has no relay endpoint", path)
	case err != nil:
		return "", fmt.Errorf("%w; with hosts.toml unusable no box is the hub, so there is no relay endpoint", err)
	}
	hub, _ := t.HubHost()
	return hub.Addr, nil
}
