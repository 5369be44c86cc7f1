package machine

import (
	"testing"

	"golang.org/x/sys/unix"
)

func TestOwnDisk(t *testing.T) {
	var st unix.Statfs_t
	shm := unix.Statfs("/dev/shm", &st) == nil && st.Type == unix.TMPFS_MAGIC
	for _, tc := range []struct {
		dir  string
		want bool
		skip bool
	}{
		{"/dev/shm", true, !shm},              // tmpfs, told apart by statfs, not by mountinfo
		{"/dev/shm/not/made/yet", true, !shm}, // a folder not made yet is judged by its nearest parent
		{"/proc/self", false, false},          // procfs: its lock is no disk's
	} {
		if tc.skip {
			continue
		}
		got, err := OwnDisk(tc.dir)
		if got != tc.want || err != nil {
			t.Errorf("OwnDisk(%s) = %v, %v; want %v", tc.dir, got, err, tc.want)
		}
	}
}
