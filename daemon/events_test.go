//go:build !windows

package daemon

import (
	"slices"
	"testing"

	"github.com/coder/websocket"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/web"
	"github.com/sotcomm/sotd/wire"
)

// rowIDs lists the rows' ids, in the order the event carries them.
func rowIDs(rs []web.Row) []string {
	ids := make([]string, 0, len(rs))
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	return ids
}

// TestRowsPublishWorkspaceChanged spawns two rows of the fake agent and removes
// them: each change publishes workspace.changed carrying every row as it is now
// (the first up to Ready), and a new subscription's snapshot agrees.
func TestRowsPublishWorkspaceChanged(t *testing.T) {
	t.Parallel()
	p := startPage(t, withRows(backendKinds(t)[0].Make(t)))
	ws, snap := p.subscribe(t)
	if len(snap.Rows) != 0 {
		t.Fatalf("the snapshot before any spawn holds rows %+v", snap.Rows)
	}
	c := p.dial(t)
	spawn, _ := fakeSpawn(t, "Repo", "Repo-box")
	a := rowCall[wire.WorkspaceRef](t, c, wire.OpWorkspaceSpawn, spawn).WorkspaceID
	ev := awaitEvent(t, ws, web.EvWorkspaceChanged, func(w web.WorkspaceChanged) bool {
		return slices.Equal(rowIDs(w.Rows), []string{a}) && w.Rows[0].Phase == string(rows.Ready)
	})
	if r := ev.Rows[0]; r.Host != "box" || r.Handle != "Repo-box" {
		t.Fatalf("the spawned row is published as %+v, want on box with @Repo-box", r)
	}

	second, _ := fakeSpawn(t, "Other", "")
	b := rowCall[wire.WorkspaceRef](t, c, wire.OpWorkspaceSpawn, second).WorkspaceID
	ev = awaitEvent(t, ws, web.EvWorkspaceChanged, func(w web.WorkspaceChanged) bool { return len(w.Rows) == 2 })
	if ids := rowIDs(ev.Rows); !slices.Contains(ids, a) || !slices.Contains(ids, b) {
		t.Fatalf("after the second spawn the event carries rows %v, want %s and %s", ids, a, b)
	}

	rowCall[wire.Done](t, c, wire.OpWorkspaceDestroy, wire.WorkspaceRef{WorkspaceID: a})
	awaitEvent(t, ws, web.EvWorkspaceChanged, func(w web.WorkspaceChanged) bool { return slices.Equal(rowIDs(w.Rows), []string{b}) })
	if _, snap := p.subscribe(t); !slices.Equal(rowIDs(snap.Rows), []string{b}) {
		t.Fatalf("a new snapshot holds rows %v, want only %s", rowIDs(snap.Rows), b)
	}
	rowCall[wire.Done](t, c, wire.OpWorkspaceDestroy, wire.WorkspaceRef{WorkspaceID: b})
	awaitEvent(t, ws, web.EvWorkspaceChanged, func(w web.WorkspaceChanged) bool { return len(w.Rows) == 0 })
}

// upPeers lists the peers a view shows linked.
func upPeers(ls []web.Link) []string {
	var up []string
	for _, l := range ls {
		if l.Up {
			up = append(up, l.Peer)
		}
	}
	slices.Sort(up)
	return up
}

// awaitUp waits until a subscription shows peer linked: in its snapshot, or in
// a later event, as a daemon records a link a moment after the router uses it.
func awaitUp(t *testing.T, ws *websocket.Conn, snap web.View, peer string) {
	t.Helper()
	if !slices.Contains(upPeers(snap.Links), peer) {
		awaitEvent(t, ws, web.EvLink, func(l web.Link) bool { return l.Peer == peer && l.Up })
	}
}

// TestLinksPublishUpAndDown watches the hub's page and a guest's while links end
// and come up again: each is a link event, dated by the daemon's clock, and a
// new subscription's snapshot agrees.
func TestLinksPublishUpAndDown(t *testing.T) {
	hb, ga, gb := threeBoxes(t)
	hub := pageOf(t, hb.rig, "hb")
	ws, snap := hub.subscribe(t)
	awaitUp(t, ws, snap, "ga")
	awaitUp(t, ws, snap, "gb")
	guest := pageOf(t, ga.rig, "ga")
	gws, gsnap := guest.subscribe(t)
	awaitUp(t, gws, gsnap, "hb")

	hosts := gb.d.cfg.HostsPath
	if err := gb.stop(t); err != nil {
		t.Fatal(err)
	}
	down := awaitEvent(t, ws, web.EvLink, func(l web.Link) bool { return l.Peer == "gb" && !l.Up })
	if !down.Since.Equal(testNow) {
		t.Errorf("gb's link went down since %v, want the daemon's clock %v", down.Since, testNow)
	}
	if _, snap := hub.subscribe(t); !slices.Equal(upPeers(snap.Links), []string{"ga"}) || len(snap.Links) != 2 {
		t.Fatalf("with gb stopped the hub's snapshot shows links %+v, want ga up and gb down", snap.Links)
	}

	startBox(t, gb.home, "gb", hosts)
	awaitEvent(t, ws, web.EvLink, func(l web.Link) bool { return l.Peer == "gb" && l.Up })

	if err := hb.stop(t); err != nil {
		t.Fatal(err)
	}
	awaitEvent(t, gws, web.EvLink, func(l web.Link) bool { return l.Peer == "hb" && !l.Up })
}

// TestUnreadFollowsTheInboxFiles files and reads bob's mail as a client on this
// box does, without the daemon (the protocol's route 1): the page's unread count
// still follows the inbox and the cursor.
func TestUnreadFollowsTheInboxFiles(t *testing.T) {
	t.Parallel()
	p := startPage(t)
	ws, _ := p.subscribe(t)
	f := filer.New(p.home)
	var lines []filer.Line
	for _, text := range []string{"one", "two"} {
		lines = append(lines, mail.Compose(wire.CommFile{From: "carol", To: "bob", Text: text, ID: mail.NewID()}, testNow))
	}
	if _, err := f.Append("bob", lines); err != nil {
		t.Fatal(err)
	}
	awaitEvent(t, ws, web.EvUnread, func(u web.Unread) bool { return u.Handle == "bob" && u.Count == 2 })

	b, err := f.ReadNew("bob")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit("bob", b); err != nil {
		t.Fatal(err)
	}
	awaitEvent(t, ws, web.EvUnread, func(u web.Unread) bool { return u.Handle == "bob" && u.Count == 0 })
}
