package daemon

import (
	"context"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/route"
	"github.com/sotcomm/sotd/wire"
)

// forwardGrace is what a guest waits for its hub beyond the hub's own bound on
// its offers (network.offerWait), so that the hub's sentence naming a box that did
// not answer reaches the sender rather than the guest's own about the hub.
const forwardGrace = 500 * time.Millisecond

// route files line here, or sends req to where it can be filed, by this
// daemon's hop on the line's way (route.For decides; see package route):
//   - the hub files for its own folder, and offers anything else to its linked
//     boxes (hub.Router.Deliver);
//   - a request that arrived forwarded (an offer) is filed only for a handle
//     this box's folder lists under this box (else not_here), and never sent on;
//   - a guest files when the folder's lock manager is its own, and forwards
//     anything not held here to its hub, once;
//   - a daemon with no links files or refuses.
func (d *Daemon) route(ctx context.Context, b *batcher, req wire.CommFile, line filer.Line) (wire.CommFiled, error) {
	n := d.net
	if n != nil && n.router != nil {
		return n.router.Deliver(ctx, req, func() (wire.CommFiled, error) { return fileHere(b, req, line) })
	}
	hop, own := route.Standalone, true
	var onward func(error) (wire.CommFiled, error)
	switch {
	case n == nil:
	case req.Forwarded:
		hop, b = route.Offered, n.offers
	case n.keeper != nil:
		hop = route.Guest
		own, _ = filer.Matches(n.mgr.home, n.mgr.own)
		onward = func(error) (wire.CommFiled, error) { return n.forward(ctx, req) }
	}
	return route.Follow(route.For(hop, own, true), func() (wire.CommFiled, error) { return fileHere(b, req, line) }, onward)
}

// fileHere files line through b, group-committed with the other lines waiting
// for its inbox, and answers when it is durable.
func fileHere(b *batcher, req wire.CommFile, line filer.Line) (wire.CommFiled, error) {
	res, err := b.file(req.To, line)
	if err != nil {
		return wire.CommFiled{}, err // the batcher logged it, once for the batch
	}
	return wire.CommFiled{OK: true, To: req.To, Dup: res.Dup}, nil
}

// forward sends req, marked forwarded, to the hub once and answers with the
// hub's own verdict.
func (n *network) forward(ctx context.Context, req wire.CommFile) (wire.CommFiled, error) {
	c := n.keeper.Current()
	if c == nil {
		return wire.CommFiled{}, wire.Refuse(wire.CodeNotLinked, "this box, %s, holds no link to its hub %s, so @%s was not forwarded — nothing was appended; the link is retried by itself, and the daemon's log on %s says why it is down", n.d.cfg.Host, n.role.LinkTo, req.To, n.d.cfg.Host)
	}
	n.dir.tell(req.From)
	wait := n.offerWait + forwardGrace
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	req.Forwarded = true
	var res wire.CommFiled
	err := c.Call(ctx, wire.OpCommFile, req, &res)
	switch r, refused := wire.RefusalOf(err); {
	case err == nil && res.OK:
		return res, nil
	case err == nil:
		return wire.CommFiled{}, wire.Refuse(wire.CodeFileFailed, "the hub %s answered @%s without ok; nothing is known to be filed", c.Box(), req.To)
	case refused:
		return wire.CommFiled{}, r
	case ctx.Err() != nil:
		return wire.CommFiled{}, wire.NoAnswer(c.Box(), req.To, wait)
	}
	return wire.CommFiled{}, wire.Refuse(wire.CodeNoAnswer, "the link to the hub %s ended before it answered (%v); @%s may still be filed", c.Box(), err, req.To)
}
