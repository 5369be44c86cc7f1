package reglock

import (
	"os"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/machine"
)

// self is this process's record and whether this box can prove a death with it.
type self struct {
	record
	proves bool
	// why this box proves no death, when it does not.
	noProof string
}

// newSelf builds this process's record for a lock in dir. Its proof fields are
// read only where a death can be proved (see provable); elsewhere they are "-",
// which never equals anything, so such a process never adopts a marker or
// reclaims a lock as its own.
func newSelf(dir, host string) self {
	if host == "" {
		host = home.SelfHost()
	}
	pid := os.Getpid()
	h := Holder{Name: hostField(host), Machine: machine.Unknown, Boot: machine.Unknown, PIDNS: machine.Unknown, PID: pid, Start: machine.Unknown}
	why := provable(dir)
	if why == "" {
		h.Machine, h.Boot, h.PIDNS, h.Start = machine.ID(), machine.Boot(), machine.PIDNamespace(), machine.Start(pid)
		if !known(h.Machine, h.Boot, h.PIDNS, h.Start) {
			why = "this box cannot read its own machine id, boot id, pid namespace or start tick"
		}
	}
	return self{record: record{line: h.String(), Holder: h}, proves: why == "", noProof: why}
}

// provable says why this box proves no death for a lock in dir, or "" when it
// does: the OS reads the proof facts, /proc is this process's own, and the
// folder's mount makes a read fresh.
func provable(dir string) string {
	if !machine.ProvesDeath {
		return "this system records no proof of death"
	}
	if !procIsMine() {
		return "this process's /proc is not its own pid namespace's"
	}
	if err := vouch(dir); err != nil {
		return err.Error()
	}
	return ""
}

// isMe reports whether r is this process's record. Only a record with proof
// fields can be: a proofless one could be another box's process with the same
// host name and pid.
func (me self) isMe(r record) bool {
	return me.proves && r.line == me.line
}

func known(fields ...string) bool {
	for _, f := range fields {
		if f == "" || f == machine.Unknown {
			return false
		}
	}
	return true
}
