package reglock

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// State is what a look at the lock found, judged from this box.
type State int

const (
	Free       State = iota // no lock
	HeldLive                // its holder is running
	HeldDead                // this box proves its holder dead: `sotd lock-clear` removes it
	HeldUnsure              // this box cannot prove its holder dead or alive
	HeldByHand              // no reclaim can clear it: its record names no holder
)

// Inspection is one look at the lock, for `sotd doctor`.
type Inspection struct {
	State  State
	Holder *Holder       // what the lock names; nil when Free or HeldByHand
	Age    time.Duration // since the lock was last written, by now
	Why    string        // what the judgement rests on, for a person
	Fix    string        // the recovery, for a person; "" when none is needed
}

// Inspect reads the lock at path once and judges its holder by the same proof
// of death Take and Clear use, from box host ("" = this box). It takes no turn,
// writes nothing and never waits: a lock released meanwhile reads as Free.
func Inspect(path, host string, now time.Time) Inspection {
	me := newSelf(filepath.Dir(path), host)
	r, st, err := fresh(path, me.proves)
	var in Inspection
	if fi, serr := os.Lstat(path); serr == nil {
		in.Age = now.Sub(fi.ModTime()).Round(time.Second)
	}
	switch {
	case st == readFailed && isDir(path):
		in.State, in.Why = HeldByHand, "it is a folder, left by an older version that records no holder"
	case st == readFailed && exists(path):
		in.State, in.Why = HeldUnsure, fmt.Sprintf("its record could not be read (%v)", cause(err))
		in.Fix = fmt.Sprintf("Retry; if it stays unreadable and its holder is dead, remove %s by hand.", path)
	case st == readFailed:
		in.State, in.Why = Free, "no process holds it"
	case st == readNotRecord:
		in.State, in.Why = HeldByHand, fmt.Sprintf("its record names no holder (%s)", shown(r.line))
	default:
		h := r.Holder
		in.Holder = &h
		v, pl, why := me.judge(h)
		in.Why = why
		switch v {
		case alive:
			in.State = HeldLive
		case dead:
			in.State, in.Fix = HeldDead, "Run sotd lock-clear."
		default:
			in.State, in.Fix = HeldUnsure, recovery(pl, h, path)
		}
	}
	if in.State == HeldByHand {
		in.Fix = fmt.Sprintf("If its holder is dead, remove %s by hand.", path)
	}
	return in
}
