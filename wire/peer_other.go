//go:build !linux && !darwin

package wire

import "errors"

// PeerUID cannot ask here: Windows' AF_UNIX tells no peer.
func (c *Client) PeerUID() (int, error) {
	return 0, errors.New("this system's Unix sockets tell no peer")
}
