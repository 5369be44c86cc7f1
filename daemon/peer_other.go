//go:build !linux && !darwin

package daemon

import "net"

// peerCred cannot ask: Windows' AF_UNIX has no SO_PEERCRED. There the socket's
// folder, private to the user by the profile's access list, is the only gate.
func peerCred(*net.UnixConn) (uid, pid int, err error) {
	return 0, 0, errNoPeerCred
}
