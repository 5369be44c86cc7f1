package hub

import (
	"context"
	"encoding/json"
	"errors"
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
// mail); else to every linked box at once. A handle every box answered
// not_here for is answered not_here without an offer for UnheldFor after, until
// a link comes up or ends, or any directory changes (a negative cache: the
// directory of the box that takes the handle ends it), and its sentence names
// the boxes that were not linked when it was cached. first, when not nil, is a refusal
// that came before any offer (the hub's own). All offers share one deadline,
// cfg.Wait.
func (r *Router) Offer(ctx context.Context, req wire.CommFile, first *wire.Refusal) (wire.CommFiled, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Wait)
	defer cancel()
	req.Forwarded = true
	t := tally{refusal: first}
	if holder := r.holder(req.To); holder != nil {
		a := r.offerOne(ctx, holder, req)
		if a.err == nil {
			return a.res, nil
		}
		t.note(a)
		return wire.CommFiled{}, t.verdict(req.To, r.cfg.Wait, nil)
	}
	notLinked, unheld, gen := r.knownUnheld(req.To)
	if !unheld {
		peers := r.Peers(nil)
		if res, ok := r.fanOut(ctx, peers, req, &t); ok {
			return res, nil
		}
		// Else a box refused or was silent, and the verdict names it, not
		// the boxes that are not linked.
		if t.notHere == len(peers) {
			notLinked = r.NotLinked()
			r.unheldSince(req.To, gen, notLinked)
		}
	}
	return wire.CommFiled{}, t.verdict(req.To, r.cfg.Wait, notLinked)
}

// answer is one box's answer to an offer.
type answer struct {
	box string
	res wire.CommFiled
	err error
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
	// Sized so that no offer waits to hand in its answer after fanOut returned.
	answers := make(chan answer, len(peers))
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
	for left := len(peers); left > 0; left-- {
		var a answer
		select {
		case a = <-answers:
		case <-over:
			// Each offer still out answers context.Canceled at once (a
			// box that gave no answer) once given up.
			giveUp()
			over = nil
			a = <-answers
		}
		if a.err == nil {
			giveUp()
			return a.res, true
		}
		t.note(a)
	}
	return wire.CommFiled{}, false
}

// offered is one box's answer to an offer, res and err as its link gave them.
func (r *Router) offered(p Peer, to string, res wire.CommFiled, err error) answer {
	if err == nil && !res.OK {
		err = wire.Refuse(wire.CodeFileFailed, "the daemon on %s answered @%s without ok; nothing is known to be filed", p.Box(), to)
	}
	if err != nil {
		r.log.Debug("offer not filed", "box", p.Box(), "to", to, "err", err)
	}
	return answer{box: p.Box(), res: res, err: err}
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
