package daemon

import (
	"golang.org/x/sys/unix"
)

// credOf reads SO_PEERCRED of a connected Unix socket.
func credOf(fd int) (uid, pid int, err error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, 0, err
	}
	return int(cred.Uid), int(cred.Pid), nil
}
