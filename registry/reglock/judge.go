package reglock

import "github.com/sotcomm/sotd/machine"

type verdict int

const (
	unprovable verdict = iota
	alive
	dead
)

// place is which recovery a FAILED line names for the record that blocks.
type place int

const (
	placeHere      place = iota // run any comm command on its host
	placeElsewhere              // this box cannot prove it: on its host, or by hand
	placeOtherNS                // on its host in its pid namespace, or by hand
	placeNoProof                // its record has no proof fields: only by hand
)

// judge is the proof of death: from the holder's own machine only, the same
// boot and pid namespace with the pid gone or its start tick changed, or the
// same machine id AND host name with another boot. No timeout proves anything.
func (me self) judge(x Holder) (verdict, place, string) {
	switch {
	case !me.proves && x.proofless():
		return unprovable, placeNoProof, me.noProof
	case !me.proves:
		return unprovable, placeElsewhere, me.noProof
	case x.proofless():
		return unprovable, placeNoProof, "it was taken where no death can be proved"
	case machine.Same(x.Boot, me.Boot) && machine.Same(x.PIDNS, me.PIDNS):
		return judgePID(x)
	case machine.Same(x.Machine, me.Machine) && x.Name == me.Name && known(x.Boot) && x.Boot != me.Boot:
		return dead, placeHere, "its machine has rebooted since"
	case machine.Same(x.Boot, me.Boot):
		// One kernel boot: a container beside this one, whatever its name.
		return unprovable, placeOtherNS, "it is in another pid namespace"
	case !machine.Same(x.Machine, me.Machine) || x.Name != me.Name:
		return unprovable, placeElsewhere, "it is on another machine"
	}
	return unprovable, placeElsewhere, "its record does not say which boot it ran in"
}

// judgePID judges a holder in this boot and pid namespace by its pid.
func judgePID(x Holder) (verdict, place, string) {
	now := machine.Start(x.PID)
	switch {
	case now != machine.Unknown && known(x.Start) && now != x.Start:
		return dead, placeHere, "its pid now names another process"
	case now != machine.Unknown:
		return alive, placeHere, "it is running"
	case procGone(x.PID):
		return dead, placeHere, "it has exited"
	}
	return unprovable, placeElsewhere, "its process entry cannot be read"
}
