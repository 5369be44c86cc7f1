package network

import (
	"context"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/metrics"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/route"
	"github.com/sotcomm/sotd/wire"
)

// forwardGrace is what a guest waits for its hub beyond the hub's own bound on
// its offers (network.offerWait), so that the hub's sentence naming a box that did
// not answer reaches the sender rather than the guest's own about the hub.
const forwardGrace = 500 * time.Millisecond

// File files one line from this box's own socket or page by route 1's rules,
// the same ones a client's own append applies (package mail), group-committed
// with the other lines waiting for its inbox, or sends it on (route). The
// answer comes when the line is durable; a line whose id the inbox already
// holds is answered ok, dup. ctx is the caller's: it bounds what routing sends
// on, and ends when the caller gives up.
func (n *Network) File(ctx context.Context, req wire.CommFile) (wire.CommFiled, error) {
	return n.file(ctx, req, n.routeRegistry(), false)
}

// file is File for any caller, a link's too: reg is the registry as read
// after the request arrived (routeRegistry), offer says it is the hub's offer.
func (n *Network) file(ctx context.Context, req wire.CommFile, reg registryLook, offer bool) (wire.CommFiled, error) {
	if err := mail.CheckRequest(req); err != nil {
		return wire.CommFiled{}, n.refused(req, err)
	}
	return n.route(ctx, req, reg, offer)
}

// lineOf is the line req files, or its refusal, logged.
func (n *Network) lineOf(req wire.CommFile) (filer.Line, error) {
	if err := mail.CheckRequest(req); err != nil {
		return filer.Line{}, n.refused(req, err)
	}
	line := mail.Compose(req, n.now())
	// One line that cannot be encoded would fail its whole batch, so it is
	// refused here, alone; the batch's append encodes it.
	if err := line.Check(); err != nil {
		return filer.Line{}, n.refused(req, wire.Refuse(wire.CodeBadRequest, "the line for @%s cannot be filed: %v; nothing was appended", req.To, err))
	}
	return line, nil
}

// refused logs a request refused before it was queued: the sender's mistake.
func (n *Network) refused(req wire.CommFile, err error) error {
	n.log.Info("comm.file refused", "from", req.From, "to", req.To, "err", err)
	metrics.Refused(wire.AsRefusal(err).Code)
	return err
}

// route files line here, or sends req to where it can be filed, by this
// daemon's hop on the line's way (route.For decides; see package route):
//   - the hub files for its own folder, and offers anything else to its linked
//     boxes (hub.Router.Deliver);
//   - a request that arrived forwarded (an offer) is filed only for a handle
//     this box's folder lists under this box (else not_here), and never sent on;
//     a hub is handed one, over its link to another hub, as an offer;
//   - a guest files when the folder's lock manager is its own and its registry
//     lists the handle, and forwards anything else through a hub (forward);
//   - a hub of several sends a line its own links hold nobody for, and which
//     another hub's view names, through that hub (forward);
//   - a daemon with no links files or refuses.
//
// A handle the registry does not list is answered not_here, or sent on, before
// it reaches the group commit: a batch commit only to learn that would queue it
// behind the inbox's other lines. reg is the registry as read for this request,
// after it arrived (a link's batch reads it once for all its requests).
func (n *Network) route(ctx context.Context, req wire.CommFile, reg registryLook, offer bool) (wire.CommFiled, error) {
	hop, own := route.Standalone, true
	var onward func(error) (wire.CommFiled, error)
	switch {
	case req.Forwarded && offer:
		hop = route.Offered
	case n.router != nil:
		hop = route.Hub
	case req.Forwarded:
		hop, offer = route.Offered, true
	case len(n.hubs) > 0:
		hop = route.Guest
		onward = func(error) (wire.CommFiled, error) { return n.forward(ctx, req) }
	}
	// One look at the registry decides both whether the line may be filed here
	// and, for a guest, whether it is tried here at all; a guest reads the lock
	// manager's record only for a line it would try here, since one it does not
	// list goes on whatever the record says.
	listed := reg.lists(req.To, hop == route.Offered)
	if hop == route.Guest && listed {
		own = n.ep.OwnLock()
	}
	// The line is made only where it is filed: a hop that sends it on sends
	// the request, and the box that files it stamps it.
	here := func() (wire.CommFiled, error) {
		if !listed {
			return wire.CommFiled{}, wire.NoBoxKnows(req.To, nil)
		}
		line, err := n.lineOf(req)
		if err != nil {
			return wire.CommFiled{}, err
		}
		o := n.ep.Commit(req.To, []filer.Line{line}, offer)[0]
		return o.Res, o.Err
	}
	if hop == route.Hub {
		if !req.Forwarded && !listed && n.router.Holder(req.To) == "" && n.namedBy(req.To) {
			return n.forward(ctx, req)
		}
		return n.router.Deliver(ctx, req, here)
	}
	return route.Follow(route.For(hop, own, listed), here, onward)
}

// registryLook is the registry as the filing path read it once (regcache), for
// the routes of the requests that arrived before: whether it lists a handle
// only spares a line the group commit's queue, since the batch looks at the registry
// again just before its append.
type registryLook struct {
	doc  *registry.Doc // nil when the registry could not be read
	host string
}

// routeRegistry reads the registry for the routes of the requests here now.
func (n *Network) routeRegistry() registryLook {
	doc, _ := n.reg.Read() // nil when it cannot be read, which lists takes as listing
	return registryLook{doc: doc, host: n.self}
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
