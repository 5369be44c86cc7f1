//go:build !windows

package filer

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// inboxFlags: O_APPEND keeps even a writer outside our lock manager from writing
// over a line; truncation still works on such a descriptor here.
const inboxFlags = os.O_RDWR | os.O_CREATE | os.O_APPEND

// tryLock makes one non-blocking flock; ok is false while another holder has it.
func tryLock(f *os.File, exclusive bool) (bool, error) {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	for {
		err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return false, nil
		}
		return false, err
	}
}

func unlock(f *os.File) { unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// errCode is the errno's name (ENOLCK), as flock(1) reports it.
func errCode(err error) string {
	var e unix.Errno
	if errors.As(err, &e) {
		if n := unix.ErrnoName(e); n != "" {
			return n
		}
	}
	return "error"
}
