package hub

import (
	"time"
)

// Bounds on what one link's repeated misdeeds cost the hub: its log, its
// goroutines, and its link.
const (
	// WarnEvery is how often one link's warning of one kind is logged: the
	// first at once, then at most one each WarnEvery, saying how many like it
	// were held back, so a box that repeats a refused request in a loop
	// cannot fill the hub's disk.
	WarnEvery = 10 * time.Second
	// MaxRefusedEvents bounds the directory events with refused claims one
	// link may send within RefusedWindow: a box past it (one that claims a
	// handle it was refused in a loop) has its link closed. An honest box
	// sends one such event for each change of its registry.
	MaxRefusedEvents = 30
	// RefusedWindow is the span MaxRefusedEvents is counted over.
	RefusedWindow = time.Minute
	// MaxParked bounds the handles one link may have requests waiting on at
	// once (Holds: a request that names a sender the link's directory does
	// not name yet): a request past it is answered at once.
	MaxParked = 64
)

// quiet is what the router keeps of one link's repeated misdeeds.
type quiet struct {
	warned map[string]*held // by message
	// refused counts the directory events with refused claims since
	// refusedSince.
	refused      int
	refusedSince time.Time
	parked       map[string]int // handle -> requests waiting for it (Holds)
}

// held is one kind of warning: when it may be logged again, and how many
// like it were not logged since the last one.
type held struct {
	next time.Time
	n    int
}

// quietOf is p's record, made on first use; under r.mu. A link that is no
// longer linked gets one that is not kept, as its Remove dropped its own.
func (r *Router) quietOf(p Peer) *quiet {
	q := r.quiet[p]
	if q == nil {
		q = &quiet{warned: map[string]*held{}, parked: map[string]int{}}
		if r.slots[p] != nil {
			r.quiet[p] = q
		}
	}
	return q
}

// warn logs msg for link p, at once the first time and then at most once
// each WarnEvery, with how many like it were held back since; under r.mu.
func (r *Router) warn(p Peer, msg string, args ...any) {
	q := r.quietOf(p)
	h := q.warned[msg]
	if h == nil {
		h = &held{}
		q.warned[msg] = h
	}
	now := r.cfg.Now()
	if now.Before(h.next) {
		h.n++
		return
	}
	args = append([]any{"box", p.Box()}, args...)
	if h.n > 0 {
		args = append(args, "held_back", h.n, "over", WarnEvery)
	}
	h.next, h.n = now.Add(WarnEvery), 0
	r.log.Warn(msg, args...)
}

// Warn is warn for a caller that does not hold r.mu: the daemon's refusals
// of a link's requests.
func (r *Router) Warn(p Peer, msg string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warn(p, msg, args...)
}

// refusedAgain counts a directory event of p's with refused claims, and says
// whether p is past MaxRefusedEvents within RefusedWindow; under r.mu.
func (r *Router) refusedAgain(p Peer) bool {
	q := r.quietOf(p)
	now := r.cfg.Now()
	if now.Sub(q.refusedSince) > RefusedWindow {
		q.refused, q.refusedSince = 0, now
	}
	q.refused++
	return q.refused > MaxRefusedEvents
}

// park notes a request of p's waiting for its directory to name handle, and
// says whether it may wait: requests for a handle already waited for share
// its place, and p may wait for MaxParked handles at once. unpark ends it.
func (r *Router) park(p Peer, handle string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.quietOf(p)
	if q.parked[handle] == 0 && len(q.parked) >= MaxParked {
		return false
	}
	q.parked[handle]++
	return true
}

func (r *Router) unpark(p Peer, handle string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.quiet[p]
	if q == nil {
		return
	}
	if q.parked[handle]--; q.parked[handle] <= 0 {
		delete(q.parked, handle)
	}
}
