package hub

import (
	"strings"

	"github.com/sotcomm/sotd/filer"
)

// OwnDisk reports whether dir is on this machine's own disk: on Linux, when its
// mount's lock manager is "local <machine-id>" (a disk file system whose flock is
// this kernel's). An error, or any other mount, is not own disk.
func OwnDisk(dir string) (bool, error) {
	m, err := filer.ComputeManager(dir)
	if err != nil {
		return false, err
	}
	return strings.HasPrefix(m, "local "), nil
}
