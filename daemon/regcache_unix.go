//go:build unix

package daemon

import "golang.org/x/sys/unix"

// regLook is what a registry's look compares: which file, its size and its
// modification time.
type regLook struct {
	ok        bool
	dev, ino  uint64
	size      int64
	sec, nsec int64
}

func (a regLook) same(b regLook) bool { return a == b }

// lookAt is the attributes of the registry at path, read on a descriptor
// opened for it as home.OpenFile opens one, never through a symlink, with the
// one fstat that both says it is a regular file and gives them; !ok when it
// cannot be opened or is none (registry.Read then says why). The descriptor is
// the system's own, not an *os.File, whose open asks the poller about it and
// sets it non-blocking: three calls more than this look, made per batch.
// O_NONBLOCK keeps a FIFO put in the registry's place from holding the open.
func lookAt(path string) regLook {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return regLook{}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return regLook{}
	}
	sec, nsec := st.Mtim.Unix()
	return regLook{ok: true, dev: uint64(st.Dev), ino: uint64(st.Ino), size: int64(st.Size), sec: sec, nsec: nsec}
}
