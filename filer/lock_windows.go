//go:build windows

package filer

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/windows"
)

// inboxFlags: no O_APPEND, because Windows opens an append-only handle without the
// write access that cutting a file back needs; every writer holds the lock, and
// Append writes at the end it measured.
const inboxFlags = os.O_RDWR | os.O_CREATE

// tryLock makes one LockFileEx that fails at once; ok is false while another
// holder has it.
func tryLock(f *os.File, exclusive bool) (bool, error) {
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, &windows.Overlapped{})
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION), errors.Is(err, windows.ERROR_IO_PENDING):
		return false, nil
	}
	return false, err
}

// unlock releases at once; a closed handle's locks are released only eventually.
func unlock(f *os.File) {
	windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &windows.Overlapped{})
}

// errCode is the Windows error number.
func errCode(err error) string {
	var e windows.Errno
	if errors.As(err, &e) {
		return "error " + strconv.Itoa(int(e))
	}
	return "error"
}
