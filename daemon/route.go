package daemon

import (
	"context"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/registry"
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
//   - a guest files when the folder's lock manager is its own and its registry
//     lists the handle, and forwards anything else to its hub, once;
//   - a daemon with no links files or refuses.
//
// A handle the registry does not list is answered not_here, or sent on, before
// it reaches the batcher: a batch commit only to learn that would queue it
// behind the inbox's other lines. reg is the registry as read for this request,
// after it arrived (a link's batch reads it once for all its requests).
func (d *Daemon) route(ctx context.Context, b *batcher, req wire.CommFile, reg registryLook) (wire.CommFiled, error) {
	n := d.net
	hop, own := route.Standalone, true
	var onward func(error) (wire.CommFiled, error)
	switch {
	case n == nil:
	case n.router != nil:
		hop = route.Hub
	case req.Forwarded:
		hop, b = route.Offered, n.offers
	case n.keeper != nil:
		hop = route.Guest
		onward = func(error) (wire.CommFiled, error) { return n.forward(ctx, req) }
	}
	// One look at the registry decides both whether the line may be filed here
	// and, for a guest, whether it is tried here at all; a guest reads the lock
	// manager's record only for a line it would try here, since one it does not
	// list goes on whatever the record says.
	listed := reg.lists(req.To, hop == route.Offered)
	if hop == route.Guest && listed {
		own, _ = filer.Matches(n.mgr.home, n.mgr.own)
	}
	// The line is made only where it is filed: a hop that sends it on sends
	// the request, and the box that files it stamps it.
	here := func() (wire.CommFiled, error) {
		if !listed {
			return wire.CommFiled{}, wire.NoBoxKnows(req.To, nil)
		}
		line, err := d.lineOf(req)
		if err != nil {
			return wire.CommFiled{}, err
		}
		return fileHere(b, req, line)
	}
	if hop == route.Hub {
		return n.router.Deliver(ctx, req, here)
	}
	return route.Follow(route.For(hop, own, listed), here, onward)
}

// registryLook is the registry as the filing path read it once (regcache), for
// the routes of the requests that arrived before: whether it lists a handle
// only spares a line the batcher's queue, since the batch looks at the registry
// again just before its append.
type registryLook struct {
	doc  *registry.Doc // nil when the registry could not be read
	host string
}

// routeRegistry reads the registry for the routes of the requests here now.
func (d *Daemon) routeRegistry() registryLook {
	doc, _ := d.reg.Read() // nil when it cannot be read, which lists takes as listing
	return registryLook{doc: doc, host: d.cfg.Host}
}

// lists says whether the registry lists handle: under this box, when mine. An
// unreadable registry counts as listing it, so the batch refuses in the
// registry's own words.
func (l registryLook) lists(handle string, mine bool) bool {
	if l.doc == nil {
		return true
	}
	e, ok := l.doc.Agents[handle]
	return ok && (!mine || e.Host == l.host)
}

// fileHere files line through b, group-committed with the other lines waiting
// for its inbox, and answers when it is durable.
func fileHere(b *batcher, req wire.CommFile, line filer.Line) (wire.CommFiled, error) {
	return filedAs(req.To, b.fileAll(req.To, []filer.Line{line})[0])
}

// filedAs is the answer to a line for @to that the batcher filed, or refused.
func filedAs(to string, o outcome) (wire.CommFiled, error) {
	if o.err != nil {
		return wire.CommFiled{}, o.err // the batcher logged it, once for the batch
	}
	return wire.CommFiled{OK: true, To: to, Dup: o.res.Dup}, nil
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
	res, err := c.File(ctx, req)
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
