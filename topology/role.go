package topology

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Role is what a daemon is, by the protocol's who-is-hub rule.
type Role struct {
	// Hub: the hub of its comm folder, the protocol's "hub". It writes the
	// folder's inbox-lock-manager record and answers a forwarded request with
	// its own verdict. A guest never writes or deletes that record.
	Hub bool
	// Serve: it is one of the topology's hubs, listening for links at its addr.
	Serve bool
	// LinkTo are the hubs this daemon dials, in hosts.toml's order: a guest's
	// every hub, a hub's every other hub; none when it links to none.
	LinkTo []string
	// Reason says why, for a person reading the log.
	Reason string
}

// String is "hub: <reason>" or "guest: <reason>".
func (r Role) String() string {
	if r.Hub {
		return "hub: " + r.Reason
	}
	return "guest: " + r.Reason
}

// RoleOf applies the protocol's who-is-hub rule to what Load gave (t, loadErr)
// for the box self, whose comm folder is or is not on its own disk. With no
// hosts.toml the daemon is a standalone hub. The topology's hub is the hub. A
// hosts.toml that cannot be read or does not validate names no hub, so that
// daemon is a guest unless its folder is on its own disk. Any other daemon
// links to the hub, and is the hub of its own folder only when that folder is
// on its own disk (a Windows box with its own comm folder), since no other
// daemon would keep that folder's record.
func RoleOf(t *Topology, loadErr error, self string, ownDisk bool) Role {
	switch {
	case errors.Is(loadErr, fs.ErrNotExist):
		return Role{Hub: true, Reason: fmt.Sprintf("no hosts.toml (%v), so this daemon is a standalone hub", loadErr)}
	case loadErr == nil && t == nil:
		return Role{Hub: true, Reason: "no hosts.toml, so this daemon is a standalone hub"}
	case loadErr != nil:
		return unnamed("hosts.toml could not be read or is not valid, so it names no hub", "fix it and restart the daemon: "+strings.ReplaceAll(loadErr.Error(), "\n", "; "), ownDisk)
	case len(t.HubNames()) == 0:
		return unnamed("hosts.toml names no hub", "add hub = \"<box>\" and restart the daemon", ownDisk)
	case t.IsHub(self):
		others := t.HubsOf(self)
		r := Role{Hub: true, Serve: true, LinkTo: others, Reason: fmt.Sprintf("hosts.toml names %s, this box, as hub", self)}
		if len(others) > 0 {
			r.Reason += fmt.Sprintf(", one of %d; it also links to %s, so its own handles are reached through them", len(others)+1, strings.Join(others, ", "))
		}
		return r
	}
	hubs := t.HubNames()
	named, to := hubs[0]+" as hub", strings.Join(hubs, " and ")
	if len(hubs) > 1 {
		named = strings.Join(hubs, ", ") + " as hubs"
	}
	r := Role{Hub: ownDisk, LinkTo: hubs}
	if ownDisk {
		r.Reason = fmt.Sprintf("hosts.toml names %s and this box's comm folder is on its own disk, so this daemon keeps that folder and links to %s", named, to)
	} else {
		r.Reason = fmt.Sprintf("hosts.toml names %s, so this daemon is a guest on the hub's folder and links to %s", named, to)
	}
	if _, listed := t.Host(self); !listed {
		r.Reason += fmt.Sprintf("; this box, %s, is not listed, and %s refuses a box its hosts.toml does not list: add [host.%s] with key = the last field of `sotd id` here, to every box's hosts.toml", self, to, self)
	}
	return r
}

func unnamed(cause, fix string, ownDisk bool) Role {
	if ownDisk {
		return Role{Hub: true, Reason: cause + "; this daemon links to none, and its comm folder is on its own disk, so it is that folder's hub; " + fix}
	}
	return Role{Reason: cause + "; this daemon links to none, and its comm folder is not on its own disk, so it is a guest there; " + fix}
}
