//go:build !windows

package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/sotcomm/sotd/home"
)

// privateSocket makes the socket 0600 whatever the umask was at bind.
func privateSocket(path string) error { return os.Chmod(path, home.FileMode) }

// socketFolder prepares dir, the socket's folder. One that does not exist is
// made, private (0700). One that exists is used as it is, and only when it is
// already private, this account's and closed to everyone else: its mode is
// never changed, since $SOT_SOCKET may name a folder others use (a socket in
// /tmp would otherwise close /tmp to every other user), and a socket in a
// folder others can write could be swapped for theirs.
func socketFolder(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), home.DirMode); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(dir), err)
	}
	// Mkdir, not MkdirAll: it fails on a folder made meanwhile, which is then
	// checked rather than taken as this one's.
	err := os.Mkdir(dir, home.DirMode)
	switch {
	case err == nil:
		return home.MkdirPrivate(dir)
	case !errors.Is(err, fs.ErrExist):
		return fmt.Errorf("create %s: %w", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("read %s: %w", dir, err)
	}
	fix := fmt.Sprintf("set $%s to a path in a folder of your own that is 0700, or one that does not exist yet (sotd makes it)", home.EnvSocket)
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder; %s", dir, fix)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to uid %d, not to this account (uid %d); %s", dir, st.Uid, os.Getuid(), fix)
	}
	if m := fi.Mode().Perm(); m&0o077 != 0 {
		return fmt.Errorf("%s is open to other users (mode %o), and sotd changes no existing folder's mode; %s, or make this one private (chmod 700 %s)", dir, m, fix, dir)
	}
	return nil
}
