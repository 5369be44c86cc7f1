package filer

import "github.com/sotcomm/sotd/machine"

// managerOf names the lock manager of path's mount, for a machine with id.
func managerOf(ms []machine.Mount, path, id string) string {
	if !machine.Known(id) {
		return "none"
	}
	m, ok := machine.MountOf(ms, path)
	switch {
	case !ok:
	case m.FSType == "nfs4" && m.HasOption("local_lock=none"):
		return "nfs4 " + m.Source
	case machine.LocalFS(m.FSType):
		return "local " + id
	}
	return "none@" + id
}
