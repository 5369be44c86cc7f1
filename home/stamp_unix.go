//go:build unix

package home

import "golang.org/x/sys/unix"

type fileID struct{ dev, ino uint64 }

func (a fileID) same(b fileID) bool { return a == b }

// stampOf reads the attributes on a descriptor of the system's own, not an
// *os.File, whose open asks the poller about it and sets it non-blocking: three
// calls more than this look, which the filing path makes per batch.
func stampOf(path string, follow bool) Stamp {
	flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(path, flags, 0)
	if err != nil {
		return Stamp{}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return Stamp{}
	}
	sec, nsec := st.Mtim.Unix()
	return Stamp{ok: true, file: fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, size: int64(st.Size), mod: sec*1e9 + nsec}
}
