// Package route is the protocol's Delivery decision in one place: where one line
// goes from the process that holds it, and whether a refusal means "try
// elsewhere". The client (route 1 or its daemon), a standalone daemon, the hub
// and a guest all ask it, so the rule that picks a route cannot drift between
// them; the filing itself (filer, the daemon's batcher) and the transport (link)
// are not here.
package route

import "github.com/sotcomm/sotd/wire"

// Hop is what the process holding a line is, on the line's way to its inbox.
type Hop int

const (
	// Client is a `sotd send` process: route 1 (its own append) or its daemon.
	Client Hop = iota
	// Standalone is a daemon with no links: it files or refuses.
	Standalone
	// Hub files for its own folder and offers the rest to its linked boxes.
	Hub
	// Guest files for its folder when the folder's lock manager is its own and
	// forwards the rest to its hub, once.
	Guest
	// Offered is a guest answering its hub's offer (a request that arrived
	// forwarded): it files for its own handles and never sends a line on.
	Offered
)

// Plan is where a line goes from one hop.
type Plan struct {
	// Here: file into this home's inbox first.
	Here bool
	// Onward: send the line on (a client to its daemon, the hub to its linked
	// boxes, a guest to its hub) when it was not tried here, or was refused here
	// as not held here (TryElsewhere).
	Onward bool
}

// For is the plan at hop h. own says whether line 1 of the folder's
// inbox-lock-manager record names this box's own lock manager (filer.Matches);
// listed whether this home's registry lists the receiver, which a client and a
// guest read before they choose (a guest sends an unlisted handle on at once;
// the other daemons' filing refuses it as not_here).
func For(h Hop, own, listed bool) Plan {
	switch h {
	case Client:
		here := own && listed
		return Plan{Here: here, Onward: !here}
	case Hub:
		return Plan{Here: true, Onward: true}
	case Guest:
		return Plan{Here: own && listed, Onward: true}
	}
	return Plan{Here: true}
}

// TryElsewhere says whether err, the answer of an attempt to file here, means
// the line may be filed by another box: this folder does not list the handle, or
// lists it stale while a box that holds it live may file it. Any other answer,
// filed or refused, is the answer.
func TryElsewhere(err error) bool {
	r, ok := wire.RefusalOf(err)
	return ok && (r.Code == wire.CodeNotHere || r.Code == wire.CodeNoLiveSession)
}

// Follow carries out p: here files into this home's inbox; onward sends the line
// on, given what here answered (nil when here was not tried).
func Follow[R any](p Plan, here func() (R, error), onward func(hereErr error) (R, error)) (R, error) {
	var res R
	var err error
	if p.Here {
		if res, err = here(); err == nil || !p.Onward || !TryElsewhere(err) {
			return res, err
		}
	}
	if !p.Onward {
		return res, err
	}
	return onward(err)
}
