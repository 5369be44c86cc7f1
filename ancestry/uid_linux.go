package ancestry

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// UID is the account pid runs as: the owner of its /proc folder, which is its
// effective uid.
func UID(pid int) (int, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/"+strconv.Itoa(pid), &st); err != nil {
		return 0, err
	}
	return int(st.Uid), nil
}
