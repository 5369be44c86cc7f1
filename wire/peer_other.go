//go:build !linux && !darwin

package wire

import (
	"errors"
	"net"
)

// PeerUID cannot ask here: Windows' AF_UNIX tells no peer.
func (c *Client) PeerUID() (int, error) { return PeerUIDOf(c.conn) }

// PeerUIDOf cannot ask here either.
func PeerUIDOf(net.Conn) (int, error) {
	return 0, errors.New("this system's Unix sockets tell no peer")
}
