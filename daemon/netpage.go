package daemon

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/web"
	"github.com/sotcomm/sotd/wire"
)

// The status page as the network's dashboard: every other box's sessions come
// from the network view (netview.go), this box's from its registry; unread is
// counted only for this box's handles, whose inboxes are here.

// The daemon also previews rows and files the page's messages.
var _ web.PageActions = (*Daemon)(nil)

// PageSender is the sender a page's message is filed from: the frontend
// address fe@<box> is no handle (the protocol's Naming: a frontend is never a
// comm peer, and '@' is not a handle's character), so the page, which is the
// box's owner, sends as fe-<box>. No session holds it and it has no inbox: a
// reply to it is refused as any unknown handle is. A box acts for its own
// page sender only (mayActFor).
func PageSender(box string) string { return "fe-" + box }

// PtyScreen answers the page's read-only preview of one of this box's rows.
func (d *Daemon) PtyScreen(_ context.Context, id string) (any, error) { return d.rows.screen(id) }

// PageSend files the page's message as comm.file does, by the same route a
// session's send on this box takes.
func (d *Daemon) PageSend(ctx context.Context, to, text string) (any, error) {
	req := wire.CommFile{From: PageSender(d.cfg.Host), To: to, Text: text, ID: mail.NewID()}
	if err := mail.CheckRequest(req); err != nil {
		return nil, err
	}
	return d.commFile(ctx, d.pageBatch, req)
}

// remoteAgent is another box's entry as the page shows it: its liveness as
// that box judged it, and no unread count.
func remoteAgent(e wire.ViewEntry) web.Agent {
	a := web.Agent{Handle: e.Handle, Host: e.Box, Live: e.Live, State: e.State, Summary: e.Summary, Expertise: e.Expertise}
	if t, err := time.Parse(time.RFC3339, e.StatusAt); err == nil {
		a.StatusAt = t
	}
	return a
}

func sameRow(a, b web.Row) bool {
	return a.ID == b.ID && a.Host == b.Host && a.Handle == b.Handle && a.Phase == b.Phase &&
		(a.ExitCode == nil) == (b.ExitCode == nil) && (a.ExitCode == nil || *a.ExitCode == *b.ExitCode)
}

// lookNetwork takes the other boxes' entries and the list of boxes from the
// network view, and publishes what moved.
func (d *Daemon) lookNetwork() {
	n := d.net
	if n == nil {
		return
	}
	remote := map[string]wire.ViewEntry{}
	boxes := web.Boxes{Known: true, List: []web.BoxState{}}
	var list []wire.ViewBox
	switch {
	case n.router != nil:
		remote = n.router.View().Entries(nil, false)
		list = n.viewBoxes()
	case n.keeper != nil:
		n.copy.mu.Lock()
		boxes.Known, boxes.Why = n.copy.known, n.copy.why
		if boxes.Known {
			remote = maps.Clone(n.copy.entries)
			list = slices.Clone(n.copy.boxes)
		} else if !n.copy.asOf.IsZero() {
			boxes.AsOf = n.copy.asOf.UTC().Format(time.RFC3339)
		}
		n.copy.mu.Unlock()
		if !boxes.Known {
			list = []wire.ViewBox{{Box: d.cfg.Host, Up: true}, {Box: n.role.LinkTo, Up: false, Reason: boxes.Why}}
		}
		if n.keeper.Current() == nil {
			// A dial that failed made no link for the book to record: the
			// keeper's last error is why the link is down.
			why := "not linked yet"
			if err := n.keeper.LastError(); err != nil {
				why = err.Error()
			}
			d.view.linkDown(n.role.LinkTo, why)
		}
	default:
		list = []wire.ViewBox{{Box: d.cfg.Host, Up: true}}
	}
	for _, b := range list {
		boxes.List = append(boxes.List, web.BoxState(b))
	}
	d.view.setRemote(remote, boxes)
}

// setRemote takes the other boxes' entries and the boxes, and publishes
// agent.state for each entry that came, changed or went, and boxes when they
// moved.
func (v *webView) setRemote(remote map[string]wire.ViewEntry, boxes web.Boxes) {
	v.pub.Lock()
	defer v.pub.Unlock()
	var changed []web.Agent
	v.mu.Lock()
	for h, e := range v.remote {
		if _, ok := remote[h]; !ok {
			if _, local := v.entries[h]; !local {
				changed = append(changed, web.Agent{Handle: h, Host: e.Box, Gone: true})
			}
		}
	}
	for h, e := range remote {
		if old, ok := v.remote[h]; ok && sameInView(old, e) {
			continue
		}
		if _, local := v.entries[h]; !local {
			changed = append(changed, remoteAgent(e))
		}
	}
	v.remote = remote
	boxesMoved := !sameBoxes(v.boxes, boxes)
	v.boxes = boxes
	v.mu.Unlock()
	for _, a := range changed {
		v.bus.Publish(web.EvAgentState, a)
	}
	if boxesMoved {
		v.bus.Publish(web.EvBoxes, boxes)
	}
}

func sameBoxes(a, b web.Boxes) bool {
	return a.Known == b.Known && a.AsOf == b.AsOf && a.Why == b.Why && slices.Equal(a.List, b.List)
}

// linkDown shows peer's link down for why, publishing only a change.
func (v *webView) linkDown(peer, why string) {
	v.pub.Lock()
	defer v.pub.Unlock()
	v.mu.Lock()
	old, ok := v.links[peer]
	if ok && !old.Up && old.Reason == why {
		v.mu.Unlock()
		return
	}
	l := web.Link{Peer: peer, Up: false, Since: v.now(), Reason: why}
	if ok && !old.Up {
		l.Since = old.Since
	}
	v.links[peer] = l
	v.mu.Unlock()
	v.bus.Publish(web.EvLink, l)
}
