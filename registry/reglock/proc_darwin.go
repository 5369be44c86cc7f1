package reglock

import (
	"errors"

	"golang.org/x/sys/unix"
)

// procIsMine: macOS has one pid space, and sysctl always describes it.
func procIsMine() bool { return true }

// procGone reports whether pid names no process at all.
func procGone(pid int) bool {
	return errors.Is(unix.Kill(pid, 0), unix.ESRCH)
}

// vouch: only the Mac's own disk (MNT_LOCAL) makes a read fresh; a network
// home caches what it reads.
func vouch(dir string) error {
	path, err := resolve(dir)
	if err != nil {
		return err
	}
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return errors.New("the comm home's mount cannot be read (statfs: " + err.Error() + "), so no read of it is proved fresh")
	}
	if st.Flags&unix.MNT_LOCAL == 0 {
		return errors.New("the comm home is not on this Mac's own disk, so no read of it is proved fresh")
	}
	return nil
}
