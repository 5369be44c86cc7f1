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

// lockFlags opens an inbox lock file.
const lockFlags = os.O_RDWR | os.O_CREATE

// errCode is the Windows error number.
func errCode(err error) string {
	var e windows.Errno
	if errors.As(err, &e) {
		return "error " + strconv.Itoa(int(e))
	}
	return "error"
}
