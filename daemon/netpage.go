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

// The status page as the network's dashboard: every other box's sessions and
// rows come from the network view (netview.go), this box's from its registry
// and its rows; unread is counted only for this box's handles, whose inboxes
// are here. A row's screen is previewed only on its own box's page: a screen
// is not mail, and no box reads another box's terminal (a pinned box acts only
// for what it holds), so the view carries no screen and the page has no way to
// ask another box for one.

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
func (d *Daemon) PageSend(ctx context.Context, p web.PageSendReq) (any, error) {
	req := wire.CommFile{From: PageSender(d.cfg.Host), To: p.To, Text: p.Text, ID: mail.NewID(), InReplyTo: p.ReplyTo}
	if err := mail.CheckRequest(req); err != nil {
		return nil, err
	}
	return d.commFile(ctx, d.pageBatch, req, d.routeRegistry())
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
	if !sameExit(a.ExitCode, b.ExitCode) {
		return false
	}
	a.ExitCode, b.ExitCode = nil, nil
	return a == b
}

// viewRow is one of this box's rows as the network view carries it.
func viewRow(r web.Row) wire.ViewRow {
	out := wire.ViewRow{ID: r.ID, Box: r.Host, Label: r.Label, Phase: r.Phase, Agent: r.Agent, Handle: r.Handle, ExitCode: r.ExitCode}
	if !r.Since.IsZero() {
		out.Since = r.Since.UTC().Format(time.RFC3339)
	}
	return out
}

// pageRow is another box's row as the page shows it.
func pageRow(r wire.ViewRow) web.Row {
	out := web.Row{ID: r.ID, Host: r.Box, Label: r.Label, Agent: r.Agent, Handle: r.Handle, Phase: r.Phase, ExitCode: r.ExitCode}
	if t, err := time.Parse(time.RFC3339, r.Since); err == nil {
		out.Since = t
	}
	return out
}

// ownRows is this box's rows as its page last looked at them, by Key: its
// part of the network view.
func (v *webView) ownRows() map[string]wire.ViewRow {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make(map[string]wire.ViewRow, len(v.rows))
	for _, r := range v.rows {
		vr := viewRow(r)
		out[vr.Key()] = vr
	}
	return out
}

// lookNetwork takes the other boxes' entries and rows and the list of boxes
// from the network view, and publishes what moved.
func (d *Daemon) lookNetwork() {
	n := d.net
	if n == nil {
		return
	}
	remote := map[string]wire.ViewEntry{}
	rows := map[string]wire.ViewRow{}
	boxes := web.Boxes{Known: true, List: []web.BoxState{}}
	var list []wire.ViewBox
	switch {
	case n.router != nil:
		remote = n.router.View().Entries(nil, false)
		rows = n.router.View().Rows(nil, false)
		list = n.viewBoxes()
	case n.keeper != nil:
		n.copy.mu.Lock()
		boxes.Known, boxes.Why = n.copy.known, n.copy.why
		if boxes.Known {
			remote = maps.Clone(n.copy.entries)
			rows = maps.Clone(n.copy.rows)
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
	d.view.setRemote(remote, rows, boxes)
}

// setRemote takes the other boxes' entries, rows (by Key) and the boxes, and
// publishes agent.state for each entry that came, changed or went, box.rows
// for each box whose rows moved, and boxes when they moved.
func (v *webView) setRemote(remote map[string]wire.ViewEntry, rows map[string]wire.ViewRow, boxes web.Boxes) {
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
	rowsMoved := boxRowsMoved(v.netRows, rows)
	v.netRows = rows
	boxesMoved := !sameBoxes(v.boxes, boxes)
	v.boxes = boxes
	v.mu.Unlock()
	for _, a := range changed {
		v.bus.Publish(web.EvAgentState, a)
	}
	for _, br := range rowsMoved {
		v.bus.Publish(web.EvBoxRows, br)
	}
	if boxesMoved {
		v.bus.Publish(web.EvBoxes, boxes)
	}
}

// boxRowsMoved is, for each box whose rows differ between was and now (by
// Key), every row it has now, as the page shows them, by id.
func boxRowsMoved(was, now map[string]wire.ViewRow) []web.BoxRows {
	moved := map[string]bool{}
	changed, gone := changes(was, now, sameViewRow)
	for _, r := range changed {
		moved[r.Box] = true
	}
	for _, k := range gone {
		moved[was[k].Box] = true
	}
	byBox := map[string][]web.Row{}
	for _, k := range slices.Sorted(maps.Keys(now)) {
		if r := now[k]; moved[r.Box] {
			byBox[r.Box] = append(byBox[r.Box], pageRow(r))
		}
	}
	var out []web.BoxRows
	for _, box := range slices.Sorted(maps.Keys(moved)) {
		out = append(out, web.BoxRows{Box: box, Rows: append([]web.Row{}, byBox[box]...)})
	}
	return out
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
