//go:build !linux

package filer

import "github.com/sotcomm/sotd/machine"

// computeManager names the lock manager behind dir's mount. Off Linux no mount is
// read: the lock is this machine's own, `none@<machine id>`, or bare `none` (which
// never matches) with no machine id.
func computeManager(dir string) (string, error) {
	if id := machine.ID(); machine.Known(id) {
		return "none@" + id, nil
	}
	return "none", nil
}
