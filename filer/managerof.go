package filer

import "github.com/sotcomm/sotd/machine"

// localKinds are the file systems whose flock is this machine's kernel's own.
var localKinds = map[string]bool{"ext2": true, "ext3": true, "ext4": true, "xfs": true, "btrfs": true, "zfs": true, "f2fs": true, "tmpfs": true}

// managerOf names the lock manager of path's mount, for a machine with id.
func managerOf(ms []machine.Mount, path, id string) string {
	if !knownID(id) {
		return "none"
	}
	m, ok := machine.MountOf(ms, path)
	switch {
	case !ok:
	case m.FSType == "nfs4" && m.HasOption("local_lock=none"):
		return "nfs4 " + m.Source
	case localKinds[m.FSType]:
		return "local " + id
	}
	return "none@" + id
}
