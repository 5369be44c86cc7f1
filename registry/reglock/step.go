package reglock

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/sotcomm/sotd/home"
)

// waiter is one Take or Clear against one lock path, holding the turn.
type waiter struct {
	path     string
	me       self
	opt      Options
	deadline time.Time
	bounded  bool // false for Clear, which walks with no deadline
}

func (w *waiter) over() bool { return w.bounded && !w.opt.Now().Before(w.deadline) }

// nap sleeps one poll, or what is left of the wait if that is shorter.
func (w *waiter) nap() {
	d := Poll
	if w.bounded {
		d = min(d, w.deadline.Sub(w.opt.Now()))
	}
	if d > 0 {
		w.opt.Sleep(d)
	}
}

type outcome int

const (
	stepBlocked  outcome = iota // the lock stays: block says why
	stepReleased                // the lock was gone or unreadable at the read
	stepRemoved                 // this step removed a dead holder's lock
	stepGone                    // the lock was gone after the settle
)

type stepped struct {
	outcome
	holder record // the dead holder, when removed
	proof  string // why it is dead, when removed
	err    error  // why the lock was not read, when released
	block  blocked
}

// step is one reclaim attempt against the lock as it stands. The walk runs D
// (the lock's holder), then the creator of reclaim.<D> if that one is dead too,
// and so on: every step past a marker needs its creator proved dead, so the
// live process holding the walk's last marker is the only one with authority
// over a lock that names any record the walk passed.
func (w *waiter) step() stepped {
	d, st, err := fresh(w.path, w.me.proves)
	switch st {
	case readFailed:
		// Before "released", as reading a directory fails too.
		if isDir(w.path) {
			return byHand("held by an older version that records no holder")
		}
		// Released, whether or not the lock exists now: a live writer can link
		// it between the failed read and any existence test.
		return stepped{outcome: stepReleased, err: err}
	case readNotRecord:
		return byHand(fmt.Sprintf("its record names no holder (%s)", shown(d.line)))
	}
	chain := []record{d}
	var proof string
	for {
		x := chain[len(chain)-1]
		// A marker naming this process, seen with the turn, is one a goroutine
		// of it abandoned (its re-read after the settle failed): adopt it.
		if len(chain) > 1 && w.me.isMe(x) {
			break
		}
		if len(chain) > 1 && w.over() {
			return held(d, &x, "its reclaim chain was still being walked at the deadline", placeHere)
		}
		v, pl, why := w.me.judge(x.Holder)
		// The lock itself naming this process, seen with the turn, was left by
		// one of its goroutines (a release that could not remove it): Release
		// gives up the turn only after its removal, so none of them is inside.
		if w.me.isMe(x) {
			v, why = dead, "it is this process's own, left by one of its threads"
		}
		if v != dead {
			if x.line != d.line {
				why = fmt.Sprintf("it is dead, but its reclaim by %s pid %d did not finish: %s", x.Name, x.PID, why)
			}
			return held(d, &x, why, pl)
		}
		if len(chain) == 1 {
			proof = why
		}
		marker := markerPath(w.path, x)
		took, err := link(w.path, marker, w.me.line)
		if err != nil {
			return held(d, &x, fmt.Sprintf("its reclaim marker %s cannot be taken (%v)", marker, err), placeHere)
		}
		if took {
			w.opt.Log.Info("registry lock: took a reclaim marker", "path", w.path, "marker", marker, "holder", d.line, "why", why)
			break
		}
		r, st, _ := fresh(marker, w.me.proves)
		if st != readRecord {
			return held(d, &x, fmt.Sprintf("its reclaim marker %s cannot be read", marker), placeHere)
		}
		if slices.ContainsFunc(chain, same(r)) && !w.me.isMe(r) {
			return byHand(fmt.Sprintf("its reclaim marker %s names %s, which its reclaim chain already holds, so no reclaim can pass it", marker, r.line))
		}
		chain = append(chain, r)
	}
	// The settle: a dead holder's orphaned release and in-flight calls land
	// within it.
	w.opt.Sleep(Settle)
	now, st, _ := fresh(w.path, w.me.proves)
	var s stepped
	switch {
	case st == readRecord && slices.ContainsFunc(chain, same(now)):
		if err := os.Remove(w.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return byHand(fmt.Sprintf("its dead holder's lock could not be removed (%v)", cause(err)))
		}
		w.opt.Log.Warn("registry lock: removed a dead holder's lock", slog.String("path", w.path), slog.String("holder", d.line), slog.String("why", proof))
		s = stepped{outcome: stepRemoved, holder: d, proof: proof}
	case st == readRecord:
		return held(now, nil, "it was taken again during the reclaim", placeHere)
	case !exists(w.path):
		s = stepped{outcome: stepGone, holder: d}
	default:
		return held(d, nil, "its record changed during the reclaim", placeHere)
	}
	// This process's own marker, once its lock is gone: a later death of this
	// process with its lock named must be reclaimable like any holder's.
	if !slices.ContainsFunc(chain, func(r record) bool { return !w.me.isMe(r) }) {
		os.Remove(markerPath(w.path, chain[0]))
	}
	return s
}

func held(holder record, who *record, why string, p place) stepped {
	return stepped{block: blocked{holder: &holder, who: who, why: why, place: p}}
}

func byHand(why string) stepped {
	return stepped{block: blocked{why: why, byHand: true}}
}

func same(r record) func(record) bool {
	return func(o record) bool { return o.line == r.line }
}

// markerPath is the reclaim marker for x beside lock; ':' is written '.'
// because Windows reads a ':' in a name as a stream.
func markerPath(lock string, x record) string {
	return lock + ".reclaim." + home.FileName(x.line)
}
