//go:build linux || darwin

package wire

import (
	"errors"
	"net"
)

// PeerUIDOf is the account of the process at the other end of conn, a Unix
// socket, as the kernel recorded it when that process listened: a client asks
// it before it trusts what a daemon says about the home (the registry's rows),
// since a socket in a home's run folder could be another account's.
func PeerUIDOf(conn net.Conn) (int, error) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return 0, errors.New("not a Unix socket, so its peer is not known")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var uid int
	var cerr error
	if err := raw.Control(func(fd uintptr) { uid, cerr = peerUID(int(fd)) }); err != nil {
		return 0, err
	}
	return uid, cerr
}
