//go:build !linux

package filer

import "github.com/sotcomm/sotd/machine"

// ComputeManager names the lock manager behind dir's mount. Off Linux no mount is
// read: the lock is this machine's own, `none@<machine id>`, or bare `none` (which
// never matches) with no machine id.
func ComputeManager(dir string) (string, error) {
	if id := machine.ID(); knownID(id) {
		return "none@" + id, nil
	}
	return "none", nil
}
