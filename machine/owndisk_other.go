//go:build !linux && !darwin && !windows

package machine

// OwnDisk is false where the protocol names no own-disk test: such a daemon is
// the hub of its folder only when hosts.toml names it, or there is none.
func OwnDisk(dir string) (bool, error) { return false, nil }
