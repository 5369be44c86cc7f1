//go:build !windows

package daemon

import (
	"os"

	"github.com/sotcomm/sotd/home"
)

// privateSocket makes the socket 0600 whatever the umask was at bind.
func privateSocket(path string) error { return os.Chmod(path, home.FileMode) }
