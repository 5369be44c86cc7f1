package reglock

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// procIsMine reports whether /proc describes this process's pid namespace: a
// container that sees its host's /proc would read other processes' facts.
func procIsMine() bool {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return false
	}
	pid, _, _ := strings.Cut(string(b), " ")
	return pid == strconv.Itoa(os.Getpid())
}

// procGone reports whether pid names no process at all (not even a zombie).
func procGone(pid int) bool {
	_, err := os.Lstat("/proc/" + strconv.Itoa(pid))
	return errors.Is(err, fs.ErrNotExist)
}
