package page

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/viewdiff"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/web"
	"github.com/sotcomm/sotd/wire"
)

// The status page as the network's dashboard: every other box's sessions and
// rows come from the network view (package network), this box's from its registry
// and its rows; unread is counted only for this box's handles, whose inboxes
// are here. A row's screen is previewed only on its own box's page: a screen
// is not mail, and no box reads another box's terminal (a pinned box acts only
// for what it holds), so the view carries no screen and the page has no way to
// ask another box for one.

// Sender is the sender a page's message is filed from: the frontend
// address fe@<box> is no handle (the protocol's Naming: a frontend is never a
// comm peer, and '@' is not a handle's character), so the page, which is the
// box's owner, sends as fe-<box>. No session holds it and it has no inbox: a
// reply to it is refused as any unknown handle is. A box acts for its own
// page sender only (mayActFor).
func Sender(box string) string { return "fe-" + box }

// PtyScreen answers the page's read-only preview of one of this box's rows.
func (v *Page) PtyScreen(_ context.Context, id string) (any, error) { return v.cfg.Src.Screen(id) }

// PageSend files the page's message as comm.file does, by the same route a
// session's send on this box takes.
func (v *Page) PageSend(ctx context.Context, p web.PageSendReq) (any, error) {
	req := wire.CommFile{From: Sender(v.host), To: p.To, Text: p.Text, ID: mail.NewID(), InReplyTo: p.ReplyTo}
	if err := mail.CheckRequest(req); err != nil {
		return nil, err
	}
	return v.cfg.Src.Send(ctx, req)
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

// pageRows is rows as the page shows them, never nil.
func pageRows(rs []wire.ViewRow) []web.Row {
	out := make([]web.Row, 0, len(rs))
	for _, r := range rs {
		out = append(out, pageRow(r))
	}
	return out
}

// pageRow is a row as the page shows it.
func pageRow(r wire.ViewRow) web.Row {
	out := web.Row{ID: r.ID, Host: r.Box, Label: r.Label, Agent: r.Agent, Handle: r.Handle, Phase: r.Phase, ExitCode: r.ExitCode}
	if t, err := time.Parse(time.RFC3339, r.Since); err == nil {
		out.Since = t
	}
	return out
}

// OwnRows is this box's rows as its page last looked at them, by Key: its
// part of the network view.
func (v *Page) OwnRows() map[string]wire.ViewRow {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make(map[string]wire.ViewRow, len(v.rows))
	for _, r := range v.rows {
		out[r.Key()] = r
	}
	return out
}

// lookNetwork takes the other boxes' entries and rows and the list of boxes
// from the network view, and publishes what moved.
func (v *Page) lookNetwork() {
	n, ok := v.cfg.Src.Network()
	if !ok {
		return
	}
	for _, peer := range slices.Sorted(maps.Keys(n.Down)) {
		v.linkDown(peer, n.Down[peer])
	}
	v.setRemote(n.Remote, n.Rows, n.Boxes)
}

// setRemote takes the other boxes' entries, rows (by Key) and the boxes, and
// publishes agent.state for each entry that came, changed or went, box.rows
// for each box whose rows moved, and boxes when they moved.
func (v *Page) setRemote(remote map[string]wire.ViewEntry, rows map[string]wire.ViewRow, boxes web.Boxes) {
	v.pub.Lock()
	defer v.pub.Unlock()
	var changed []web.Agent
	regroup := false // a handle's box as boxOf names it may have changed
	v.mu.Lock()
	for h, e := range v.remote {
		if _, ok := remote[h]; !ok {
			regroup = true
			if _, local := v.entries[h]; !local {
				changed = append(changed, web.Agent{Handle: h, Host: e.Box, Gone: true})
			}
		}
	}
	for h, e := range remote {
		old, ok := v.remote[h]
		regroup = regroup || !ok || old.Box != e.Box
		if ok && viewdiff.SameInView(old, e) {
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
	if regroup {
		v.convos.regroupRates()
	}
}

// boxRowsMoved is, for each box whose rows differ between was and now (by
// Key), every row it has now, as the page shows them, by id.
func boxRowsMoved(was, now map[string]wire.ViewRow) []web.BoxRows {
	moved := map[string]bool{}
	changed, gone := viewdiff.Changes(was, now, viewdiff.SameViewRow)
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
func (v *Page) linkDown(peer, why string) {
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
