//go:build linux || darwin

package daemon

import "net"

// peerCred is the uid and pid of the process at the other end of c, as the kernel
// recorded them when it connected (or, seen from a client, when it listened).
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, 0, err
	}
	var cerr error
	if err := raw.Control(func(fd uintptr) { uid, pid, cerr = credOf(int(fd)) }); err != nil {
		return 0, 0, err
	}
	return uid, pid, cerr
}
