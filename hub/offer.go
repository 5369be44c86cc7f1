package hub

import (
	"context"
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
// holder of req.To alone, then, only if there is none or it answers not_here, to
// every other linked box at once. first, when not nil, is a refusal that came
// before any offer (the hub's own). All offers share one deadline, cfg.Wait.
func (r *Router) Offer(ctx context.Context, req wire.CommFile, first *wire.Refusal) (wire.CommFiled, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Wait)
	defer cancel()
	req.Forwarded = true
	t := tally{refusal: first}
	holder := r.holder(req.To)
	if holder != nil {
		if res, ok := r.fanOut(ctx, []Peer{holder}, req, &t); ok {
			return res, nil
		}
		if t.notHere == 0 {
			// The holder refused in its own words, or said nothing in time: no
			// other box would file what the box holding the handle did not.
			return wire.CommFiled{}, t.verdict(req.To, r.cfg.Wait, nil)
		}
		r.log.Debug("the directory's holder does not hold the handle; offering to every box", "to", req.To, "holder", holder.Box())
	}
	if res, ok := r.fanOut(ctx, r.Peers(holder), req, &t); ok {
		return res, nil
	}
	var missing []string
	if t.refusal == nil && t.silent == "" {
		missing = r.NotLinked()
	}
	return wire.CommFiled{}, t.verdict(req.To, r.cfg.Wait, missing)
}

// answer is one box's answer to an offer.
type answer struct {
	box string
	res wire.CommFiled
	err error
}

// fanOut offers req to every peer at once, at most cfg.MaxOffers in flight
// across all requests, and returns the first ok. Without one, every answer is
// noted in t. Offers still out when the ok comes are cancelled; they end on
// their own, counted by r.offers.
func (r *Router) fanOut(ctx context.Context, peers []Peer, req wire.CommFile, t *tally) (wire.CommFiled, bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Sized so that no offer waits to hand in its answer after fanOut returned.
	answers := make(chan answer, len(peers))
	pending, out := peers, 0
	done := ctx.Done()
	for len(pending) > 0 || out > 0 {
		slots := r.slots
		if len(pending) == 0 {
			slots = nil
		}
		select {
		case slots <- struct{}{}:
			p := pending[0]
			pending = pending[1:]
			out++
			r.offers.Go(func() {
				defer func() { <-r.slots }()
				answers <- r.offerTo(ctx, p, req)
			})
		case a := <-answers:
			out--
			if a.err == nil {
				return a.res, true
			}
			t.note(a)
		case <-done:
			// No slot came in time: those boxes were never asked, and the ones
			// asked answer at once now that ctx has ended.
			for _, p := range pending {
				t.note(answer{box: p.Box(), err: ctx.Err()})
			}
			pending, done = nil, nil
		}
	}
	return wire.CommFiled{}, false
}

func (r *Router) offerTo(ctx context.Context, p Peer, req wire.CommFile) answer {
	var res wire.CommFiled
	err := p.Call(ctx, wire.OpCommFile, req, &res)
	if err == nil && !res.OK {
		err = wire.Refuse(wire.CodeFileFailed, "the daemon on %s answered @%s without ok; nothing is known to be filed", p.Box(), req.To)
	}
	if err != nil {
		r.log.Debug("offer not filed", "box", p.Box(), "to", req.To, "err", err)
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

// verdict is the answer when no box filed the line, by the protocol's order.
func (t *tally) verdict(to string, wait time.Duration, notLinked []string) *wire.Refusal {
	switch {
	case t.refusal != nil:
		return t.refusal
	case t.silent != "":
		return wire.NoAnswer(t.silent, to, wait)
	}
	return wire.NoBoxKnows(to, notLinked)
}
