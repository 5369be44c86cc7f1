//go:build unix

package ancestry

import (
	"io/fs"
	"syscall"
)

// readSmall reads a small file whole into buf (grown as it must be) with plain
// system calls: open, reads to the end, close. os.ReadFile adds an fstat and the
// poller's registration, six calls more per file: twelve per process a walk
// reads, and six per runner record, which were most of what a verdict cost.
func readSmall(path string, buf []byte) ([]byte, error) {
	var fd int
	var err error
	for {
		if fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0); err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	n := 0
	for {
		if n == len(buf) {
			buf = append(buf, make([]byte, len(buf))...)
		}
		m, err := syscall.Read(fd, buf[n:])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		case m == 0:
			return buf[:n], nil
		}
		n += m
	}
}
