package daemon

import (
	"strconv"

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

// procUID is the account pid runs as: the owner of its /proc folder, which
// is its effective uid.
func procUID(pid int) (int, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/"+strconv.Itoa(pid), &st); err != nil {
		return 0, err
	}
	return int(st.Uid), nil
}
