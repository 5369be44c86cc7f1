package machine

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// OwnDisk reports whether dir is on this Mac's own disk: its mount carries
// MNT_LOCAL (a network home does not). An error is not own disk.
func OwnDisk(dir string) (bool, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false, fmt.Errorf("statfs %s: %w", dir, err)
	}
	return st.Flags&unix.MNT_LOCAL != 0, nil
}
