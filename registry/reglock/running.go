package reglock

import (
	"os"

	"github.com/sotcomm/sotd/machine"
)

// Me is this process's record, every proof field read (one that cannot be is
// "-"), for a record that says which process runs rather than one a waiter
// must prove dead.
func Me(host string) Holder {
	pid := os.Getpid()
	return Holder{Name: hostField(host), Machine: machine.ID(), Boot: machine.Boot(), PIDNS: machine.PIDNamespace(), PID: pid, Start: machine.Start(pid)}
}

// Running reports whether this box sees h's process running now: h was
// written on this machine, in this boot and pid namespace, and its pid still
// names a process that started at h's start tick. Anything this box cannot
// read, or a record without those facts, is not running: a caller refuses to
// start only on a process it sees.
func Running(h Holder) bool {
	if !machine.ProvesDeath || !procIsMine() || !known(h.Start) {
		return false
	}
	if !machine.Same(h.Machine, machine.ID()) || !machine.Same(h.Boot, machine.Boot()) || !machine.Same(h.PIDNS, machine.PIDNamespace()) {
		return false
	}
	v, _, _ := judgePID(h)
	return v == alive
}
