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

// vouch says why a read of dir is not proved fresh, or nil when it is.
func vouch(dir string) error {
	path, err := resolve(dir)
	if err != nil {
		return err
	}
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return errors.New("the comm home's mount cannot be read from /proc/self/mountinfo, so no read of it is proved fresh")
	}
	m, ok := mountOf(string(info), path)
	if !ok {
		return errors.New("the comm home's mount is not in /proc/self/mountinfo, so no read of it is proved fresh")
	}
	return m.vouch()
}
