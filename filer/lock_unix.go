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

// lockFlags: O_NONBLOCK, which flock(2) ignores, because os.OpenFile switches a
// descriptor opened without it to non-blocking and back (four fcntl calls) to
// learn that a file cannot be polled; measured, that was a quarter of an
// uncontended lock's cost, which every append and read pays.
const lockFlags = os.O_RDWR | os.O_CREATE | unix.O_NONBLOCK

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
