package filer

import "github.com/sotcomm/sotd/machine"

// computeManager names the lock manager behind dir's mount, as line 1 of the
// inbox-lock-manager record: `nfs4 <server>:<export>` for an NFSv4 mount with
// local_lock=none, `local <machine-id>` for a disk file system whose flock is this
// kernel's, `none@<machine-id>` for any other mount (NFSv3, overlayfs, FUSE …), and
// bare `none`, which never matches, with no machine id. When the mount cannot be
// read it still answers none@<machine-id> (a mount whose lock is unknown) and
// returns the error too.
func computeManager(dir string) (string, error) {
	id := machine.ID()
	if !machine.Known(id) {
		return "none", nil
	}
	path, err := machine.RealPath(dir)
	if err != nil {
		return "none@" + id, err
	}
	ms, err := machine.Mounts()
	if err != nil {
		return "none@" + id, err
	}
	return managerOf(ms, path, id), nil
}
