package daemon

import "golang.org/x/sys/unix"

// credOf reads LOCAL_PEERCRED and LOCAL_PEERPID of a connected Unix socket.
func credOf(fd int) (uid, pid int, err error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, 0, err
	}
	pid, err = unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	if err != nil {
		return 0, 0, err
	}
	return int(cred.Uid), pid, nil
}
