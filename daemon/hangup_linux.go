package daemon

import (
	"net"

	"golang.org/x/sys/unix"
)

// hungUp reports whether the peer closed its whole socket. A peer that closed
// only its sending half (shutdown) still reads: the kernel says POLLHUP only
// once both halves are shut.
func hungUp(nc *net.UnixConn) bool {
	raw, err := nc.SyscallConn()
	if err != nil {
		return true // the connection is already closed
	}
	var hup bool
	if err := raw.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		if _, err := unix.Poll(fds, 0); err == nil {
			hup = fds[0].Revents&unix.POLLHUP != 0
		}
	}); err != nil {
		return true
	}
	return hup
}
