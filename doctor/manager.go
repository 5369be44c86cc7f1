package doctor

import (
	"fmt"
	"strings"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/machine"
	"github.com/sotcomm/sotd/topology"
)

// checkLockManager: the inbox-lock-manager record against this box's own
// manager. On the folder's hub a record another machine wrote stops every
// filing; on a guest a different manager only means its sends go through a
// daemon (route 2).
func checkLockManager(e Env, hosts hostsFile) Check {
	c := Check{Name: "lock manager"}
	own, merr := filer.OwnManager(e.Home)
	ownDisk, _ := machine.OwnDisk(e.Home.Dir)
	role := topology.RoleOf(hosts.t, hosts.err, e.Host, ownDisk)
	path := e.Home.LockManager()
	line1, line2, found, err := filer.ReadRecord(path)
	switch {
	case err != nil:
		c.Level, c.Detail = Fail, err.Error()
		c.Fix = fmt.Sprintf("Stop every daemon on the folder, move %s aside and start the hub.", path)
	case role.Hub && own == filer.NoManager:
		c.Level, c.Detail = Fail, "this box is the folder's hub and has no machine id, so it refuses every filing"
		c.Fix = "Give the machine a machine id (/etc/machine-id on Linux), then restart the daemon."
	case !found:
		c.Level, c.Detail = Warn, fmt.Sprintf("there is no %s: no hub has started on this folder", path)
		c.Fix = sentence(filer.RecordFix(e.Home, own, role.Hub))
	case line1 == own:
		c.Level, c.Detail = OK, fmt.Sprintf("the record names %s, this box's own manager: it files here itself", own)
	case !role.Hub:
		c.Level, c.Detail = OK, fmt.Sprintf("the record names %s and this guest's manager is %s: its sends go through the daemon", line1, own)
	case machine.Known(line2) && line2 == machine.ID():
		c.Level, c.Detail = Warn, fmt.Sprintf("the record names %s, written by this machine, and this hub's manager is now %s (the folder was remounted)", line1, own)
		c.Fix = sentence(filer.RecordFix(e.Home, own, role.Hub))
	default:
		writer := "an unknown machine"
		if line2 != "" {
			writer = "machine " + line2
		}
		c.Level = Fail
		c.Detail = fmt.Sprintf("the record was written by %s and names %s, but this box is the folder's hub (%s) with manager %s: the hub files nothing", writer, line1, role.Reason, own)
		c.Fix = sentence(filer.RecordFix(e.Home, own, role.Hub))
	}
	if merr != nil && c.Level == OK {
		c.Level, c.Fix = Warn, ""
		c.Detail += fmt.Sprintf("; this folder's mount could not be read (%v), so its manager is a guess", merr)
	}
	return c
}

// sentence is a recovery clause written as a fix: a capital and a full stop.
func sentence(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:] + "."
}
