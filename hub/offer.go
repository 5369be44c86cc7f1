package hub

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/sotcomm/sotd/route"
	"github.com/sotcomm/sotd/wire"
)

// Deliver is the hub's decision for one request (route.Hub): fileHere files it
// into the hub's own folder (listed, live, under the folder's lock manager) and
// refuses not_here for a handle the folder does not list. A line filed here, or
// refused here in a way that ends the route (route.TryElsewhere), is answered so;
// anything else is offered to the linked boxes (Offer), the hub's own
// no_live_session standing as the first refusal should no box file it.
func (r *Router) Deliver(ctx context.Context, req wire.CommFile, fileHere func() (wire.CommFiled, error)) (wire.CommFiled, error) {
	return route.Follow(route.For(route.Hub, true, true), fileHere, func(hereErr error) (wire.CommFiled, error) {
		own, _ := wire.RefusalOf(hereErr)
		if own != nil && own.Code == wire.CodeNotHere {
			own = nil
		}
		return r.Offer(ctx, req, own)
	})
}

// Offer offers req, marked forwarded, to the linked boxes: to the directory's
// holder of req.To alone when there is one, whose answer is the answer (no other
// box is asked, so a box that claims a handle it does not hold never sees its
// mail); else as offerUnnamed says. A handle every box answered not_here for,
// or told by its directory it does not hold, is answered not_here without an
// offer for UnheldFor after, until a link comes up or ends, or any directory
// changes (a negative cache: the directory of the box that takes the handle
// ends it), and its sentence names the boxes that were not linked when it was
// cached. first, when not nil, is a refusal that came before any offer (the
// hub's own). All offers, and the wait for ticks, share one deadline, cfg.Wait.
func (r *Router) Offer(ctx context.Context, req wire.CommFile, first *wire.Refusal) (wire.CommFiled, error) {
	arrived := r.cfg.Now()
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Wait)
	defer cancel()
	req.Forwarded = true
	t := tally{refusal: first}
	if holder := r.holder(req.To); holder != nil {
		return r.offerHolder(ctx, holder, req, &t)
	}
	notLinked, unheld, gen := r.knownUnheld(req.To)
	if !unheld {
		res, ok, none := r.offerUnnamed(ctx, req, arrived, &t)
		if ok {
			return res, nil
		}
		// Else a box refused or was silent, and the verdict names it, not
		// the boxes that are not linked.
		if none {
			notLinked = r.NotLinked()
			r.unheldSince(req.To, gen, notLinked)
		}
	}
	return wire.CommFiled{}, t.verdict(req.To, r.cfg.Wait, notLinked)
}

// offerHolder offers req to holder alone, whose answer is the answer.
func (r *Router) offerHolder(ctx context.Context, holder Peer, req wire.CommFile, t *tally) (wire.CommFiled, error) {
	a := r.offerOne(ctx, holder, req)
	if a.err == nil {
		return a.res, nil
	}
	t.note(a)
	return wire.CommFiled{}, t.verdict(req.To, r.cfg.Wait, nil)
}

// offerUnnamed offers req, for a handle no directory names, to the boxes whose
// directory may not be complete: those that made no Ticks promise, or whose
// full set has not come yet, every one at once, as soon as it arrived. A box
// that ticks is not offered it: its next directory event, sent on its next
// registry poll after the request arrived (so within one poll, 1.5 s), says
// whether it took the handle meanwhile, and so a line to a handle no box holds
// moves to no box at all. If a holder appears while the hub waits, it alone
// is offered the line, whose answer is the answer. A ticking box that sends no
// event within TickWait is offered the line as one that does not tick: never
// a guess that it holds nothing.
//
// ok is an ok from a box; none says every box answered not_here, or ticked
// without the handle, for the negative cache.
func (r *Router) offerUnnamed(ctx context.Context, req wire.CommFile, arrived time.Time, t *tally) (res wire.CommFiled, ok, none bool) {
	told, rest := r.byTicks()
	if len(told) == 0 {
		res, ok = r.fanOut(ctx, rest, req, t)
		return res, ok, !ok && t.notHere == len(rest)
	}
	// An ok from any box ends every other offer and the wait.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	type fanned struct {
		res wire.CommFiled
		ok  bool
		t   tally
	}
	restDone := make(chan fanned, 1)
	go func() {
		var f fanned
		if f.res, f.ok = r.fanOut(ctx, rest, req, &f.t); f.ok {
			stop()
		}
		restDone <- f
	}()
	holder, late := r.awaitTicks(ctx, told, arrived, req.To)
	var mine tally
	switch {
	case ctx.Err() != nil:
		// An ok from rest, or the sender gave up: nothing more is offered,
		// and a box not yet heard from may hold the handle.
		for _, p := range late {
			mine.note(answer{box: p.Box(), err: ctx.Err()})
		}
	case holder != nil && !slices.Contains(rest, holder):
		if a := r.offerOne(ctx, holder, req); a.err == nil {
			res, ok = a.res, true
			stop()
		} else {
			mine.note(a)
		}
	case holder == nil && len(late) > 0:
		if res, ok = r.fanOut(ctx, late, req, &mine); ok {
			stop()
		}
	}
	f := <-restDone
	if ok {
		return res, true, false
	}
	if f.ok {
		return f.res, true, false
	}
	t.add(f.t)
	t.add(mine)
	return wire.CommFiled{}, false, holder == nil && ctx.Err() == nil && f.t.notHere == len(rest) && mine.notHere == len(late)
}

// tick is what the router knows of a link that promised a directory event on
// every registry poll.
type tick struct {
	full bool      // its full set came: its directory is complete as of its last event
	last time.Time // when its last directory event came (monotonic)
}

// byTicks splits the linked boxes into those that promised Ticks, whose
// directory is complete as of an event that came after their full set, and the
// rest. A ticking box whose full set has not come yet is one to wait for: it
// sends that set first, at once, and that set says whether it holds the handle.
func (r *Router) byTicks() (told, rest []Peer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.links {
		if tk := r.ticks[p]; tk != nil && r.cfg.TickWait > 0 {
			told = append(told, p)
		} else {
			rest = append(rest, p)
		}
	}
	return told, rest
}

// awaitTicks waits until each of told sent a directory event that arrived after
// the request did (or its link ended), or a live holder of handle appears, or
// ctx ends, or the tick wait (TickWait, at most three quarters of Wait) is
// over; late is the boxes of told that had not ticked by then.
//
// Each directory event strikes its box off every waiter's list under r.mu
// (Directory), rather than wake every waiter to look again: 200 boxes ticking
// while 64 lines wait would otherwise be 12,800 wake-ups a poll.
func (r *Router) awaitTicks(ctx context.Context, told []Peer, arrived time.Time, handle string) (holder Peer, late []Peer) {
	w := &waiter{handle: handle, arrived: arrived, late: make(map[Peer]struct{}, len(told)), done: make(chan struct{})}
	r.mu.Lock()
	if p := r.holders[handle]; p != nil && r.live(p) {
		r.mu.Unlock()
		return p, nil
	}
	for _, p := range told {
		if tk := r.ticks[p]; tk != nil && (!tk.full || !sentAfter(p.RTT(), tk.last, arrived)) {
			w.late[p] = struct{}{}
		}
	}
	wait := len(w.late) > 0
	if wait {
		r.waiting[w] = struct{}{}
	}
	r.mu.Unlock()
	if wait {
		timer := time.NewTimer(min(r.cfg.TickWait, r.cfg.Wait-r.cfg.Wait/4) - r.cfg.Now().Sub(arrived))
		select {
		case <-w.done:
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.waiting, w)
	if p := r.holders[handle]; p != nil && r.live(p) {
		return p, nil
	}
	for p := range w.late {
		late = append(late, p)
	}
	return nil, late
}

// waiter is a line for a handle no directory named, waiting for ticks.
type waiter struct {
	handle  string
	arrived time.Time
	late    map[Peer]struct{} // the ticking links not heard from since it arrived
	done    chan struct{}     // closed once late is empty, or handle has a holder
}

// tickSlack is added to a link's transit margin (sentAfter), so a link not
// yet timed, or one whose round trip just grew, still has one.
const tickSlack = 10 * time.Millisecond

// sentAfter says whether a directory event that arrived at at, over a link whose
// round trip is rtt, left its box after a line that arrived at arrived: a
// one-way trip is shorter than a round trip, so an event that came two round
// trips (and tickSlack) after the line was sent after it arrived, and the
// registry read it reports saw every session that joined before the line was
// sent. One that came sooner may have been on its way already.
func sentAfter(rtt time.Duration, at, arrived time.Time) bool {
	return at.Sub(arrived) >= 2*rtt+tickSlack
}

// heard strikes p off the list of every waiter its directory event was sent
// after (sentAfter), once its full set came, or every list when its link
// ended, which sends none.
// added says the event added handles, which may give a waiter's handle its
// holder. Under r.mu. The event's lateness is judged against each waiter with
// one reading of p's round trip, not one per waiter.
func (r *Router) heard(p Peer, added, ended bool) {
	now, rtt := r.cfg.Now(), p.RTT()
	tk := r.ticks[p]
	complete := tk != nil && tk.full
	for w := range r.waiting {
		if ended || complete && sentAfter(rtt, now, w.arrived) {
			delete(w.late, p)
		}
		if len(w.late) == 0 || added && r.holders[w.handle] != nil {
			close(w.done)
			delete(r.waiting, w)
		}
	}
}

// answer is one box's answer to an offer.
type answer struct {
	box  string
	peer Peer // nil for an answer the router gave in its place
	res  wire.CommFiled
	err  error
	// vouched: an ok whose box's directory was found to name the handle
	// (vouch), not to be checked again.
	vouched bool
}

// offerOne offers req to p alone, within p's share of offer slots, by its
// link's File, which may gather it with the link's other comm.file requests.
func (r *Router) offerOne(ctx context.Context, p Peer, req wire.CommFile) answer {
	slots := r.slotsOf(p)
	if slots == nil {
		return answer{box: p.Box(), err: wire.Refuse(wire.CodeNotHere, "the link to %s ended before it was asked", p.Box())}
	}
	// A free slot is taken at once, so an offer is made even when ctx has
	// just ended; else one is waited for within ctx.
	if !slots.TryAcquire(1) && slots.Acquire(ctx, 1) != nil {
		return r.noSlot(p)
	}
	defer slots.Release(1)
	res, err := p.File(ctx, req)
	return r.offered(p, req.To, res, err)
}

func (r *Router) noSlot(p Peer) answer {
	return answer{box: p.Box(), err: wire.Refuse(wire.CodeFileFailed, "the daemon on %s was not asked: all %d offers to it were still unanswered; nothing was sent to it", p.Box(), r.cfg.MaxOffers)}
}

// fanOut offers req to every peer at once, each within its own link's share of
// offer slots (cfg.MaxOffers), and returns the first ok. Without one, every
// answer is noted in t. Offers still out when the ok comes, or when ctx ends,
// are given up (a box waiting for the inbox lock stops waiting); they end on
// their own, counted by r.offers.
//
// The body is encoded once for every box, and each offer goes out by its
// link's Go, not a goroutine of its own: an offer to 200 boxes is 200 frames
// written and one wait for their answers.
func (r *Router) fanOut(ctx context.Context, peers []Peer, req wire.CommFile, t *tally) (wire.CommFiled, bool) {
	var body any = req
	if raw, err := json.Marshal(req); err == nil {
		body = json.RawMessage(raw)
	}
	// Sized so that no offer, nor the vouch for its ok, waits to hand in its
	// answer after fanOut returned.
	answers := make(chan answer, 2*len(peers))
	cancels := make([]func(), 0, len(peers))
	for _, p := range peers {
		slots := r.slotsOf(p)
		switch {
		case slots == nil:
			answers <- answer{box: p.Box(), err: wire.Refuse(wire.CodeNotHere, "the link to %s ended before it was asked", p.Box())}
			continue
		case !slots.TryAcquire(1):
			// Every slot of p's is taken: one is waited for within ctx,
			// aside. A free slot is taken at once, so an offer is made even
			// when another box's ok has just ended ctx.
			r.offers.Go(func() {
				if slots.Acquire(ctx, 1) != nil {
					answers <- r.noSlot(p)
					return
				}
				defer slots.Release(1)
				var res wire.CommFiled
				answers <- r.offered(p, req.To, res, p.Call(ctx, wire.OpCommFile, body, &res))
			})
			continue
		}
		res := new(wire.CommFiled)
		r.offers.Add(1)
		cancels = append(cancels, p.Go(wire.OpCommFile, body, res, func(err error) {
			slots.Release(1)
			answers <- r.offered(p, req.To, *res, err)
			r.offers.Done()
		}))
	}
	giveUp := func() {
		for _, cancel := range cancels {
			cancel()
		}
	}
	over := ctx.Done()
	for left := len(peers); left > 0; {
		var a answer
		select {
		case a = <-answers:
		case <-over:
			// Each offer still out answers context.Canceled at once (a
			// box that gave no answer), and each vouch not_here, once
			// given up.
			giveUp()
			over = nil
			a = <-answers
		}
		if a.err == nil && !a.vouched && !r.names(a.peer, req.To) {
			// Its answer comes again, vouched or not, without holding up
			// the other boxes' answers meanwhile.
			r.offers.Go(func() { answers <- r.vouch(ctx, a, req.To) })
			continue
		}
		left--
		if a.err == nil {
			giveUp()
			return a.res, true
		}
		t.note(a)
	}
	return wire.CommFiled{}, false
}

// names says whether p's directory names handle: p claimed it, and the claim
// was taken.
func (r *Router) names(p Peer, handle string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.held[p][handle]
	return ok
}

// vouch is a's ok, for a handle its box's directory did not name when it came,
// once that directory names it, within ctx: an honest box files only for a
// handle its registry lists under its name, and tells the hub so by its next
// poll, on the control stream, which may come after the answer. An ok from a
// box that never claims the handle (or whose claim is refused: another box
// holds it) is no answer: it is not_here, so a box cannot take a line for a
// handle it does not hold by saying it filed it.
func (r *Router) vouch(ctx context.Context, a answer, to string) answer {
	if r.Holds(ctx, a.peer, to, r.cfg.Wait) {
		a.vouched = true
		return a
	}
	r.Warn(a.peer, "a box answered ok for a handle its directory does not name; the answer was not taken", "to", to)
	a.err = wire.Refuse(wire.CodeNotHere, "the daemon on %s answered @%s filed but does not hold it; its answer was not taken", a.box, to)
	return a
}

// offered is one box's answer to an offer, res and err as its link gave them.
func (r *Router) offered(p Peer, to string, res wire.CommFiled, err error) answer {
	if err == nil && !res.OK {
		err = wire.Refuse(wire.CodeFileFailed, "the daemon on %s answered @%s without ok; nothing is known to be filed", p.Box(), to)
	}
	if err != nil {
		r.log.Debug("offer not filed", "box", p.Box(), "to", to, "err", err)
	}
	return answer{box: p.Box(), peer: p, res: res, err: err}
}

// tally keeps what the boxes answered that was not ok, to choose the verdict.
type tally struct {
	refusal *wire.Refusal // the first refusal that is not not_here
	silent  string        // the first box that gave no answer
	notHere int           // boxes that answered not_here
}

func (t *tally) note(a answer) {
	r, ok := wire.RefusalOf(a.err)
	switch {
	case !ok || errors.Is(a.err, context.DeadlineExceeded) || errors.Is(a.err, context.Canceled):
		if t.silent == "" {
			t.silent = a.box
		}
	case r.Code == wire.CodeNotHere:
		t.notHere++
	case t.refusal == nil:
		t.refusal = r
	}
}

// add notes what another tally kept, as if its answers came after t's.
func (t *tally) add(o tally) {
	if t.silent == "" {
		t.silent = o.silent
	}
	if t.refusal == nil {
		t.refusal = o.refusal
	}
	t.notHere += o.notHere
}

// verdict is the answer when no box filed the line: a box that gave no answer
// in time may still have filed it, so that outranks any refusal (the hub's own
// included) — a FAILED for a line that was filed would be a lie; then the first
// refusal that is not not_here, in its box's own words; then not_here.
func (t *tally) verdict(to string, wait time.Duration, notLinked []string) *wire.Refusal {
	switch {
	case t.silent != "":
		return wire.NoAnswer(t.silent, to, wait)
	case t.refusal != nil:
		return t.refusal
	}
	return wire.NoBoxKnows(to, notLinked)
}
