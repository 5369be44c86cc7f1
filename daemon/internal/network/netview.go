package network

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/page"
	"github.com/sotcomm/sotd/daemon/internal/refuse"
	"github.com/sotcomm/sotd/daemon/internal/viewdiff"
	"github.com/sotcomm/sotd/hub"
	"github.com/sotcomm/sotd/internal/ctxsleep"
	"github.com/sotcomm/sotd/link"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/web"
	"github.com/sotcomm/sotd/wire"
)

// The network view (wire.OpLinkView): each guest publishes, with each handle it
// holds, what `sotd list` shows, and its rows' metadata (not their screens: no
// box reads another box's terminal); the hub merges them with its own home's
// and sends the merged view to each guest; a guest keeps a copy and answers
// net.list and its page from it. Only changed entries and rows travel, at most
// one event per viewEvery per link, and a new link gets the whole view first.
const (
	viewEvery = time.Second
	// viewGap is the least time between two events on one link: viewEvery
	// less the slack a ticker's jitter needs, so a tick each viewEvery sends.
	viewGap = viewEvery * 9 / 10
	// viewChunk bounds one view event's encoded entries, well under the 1 MiB
	// frame: a larger set goes as several events, in order.
	viewChunk = 256 << 10
)

// viewEntry is registry entry e, held under name on this box, as the view
// carries it, its liveness judged now by this box's clock (live), and its text
// within the view's bounds (hub.Clip): a summary an older writer left a
// megabyte long would make every event that carries it too big for a frame.
func viewEntry(name string, e *registry.Entry, box string, live registry.Cutoff) wire.ViewEntry {
	if e.Host != "" {
		box = e.Host
	}
	return hub.Clip(wire.ViewEntry{
		Handle: name, Box: box, Repo: e.Repo, Expertise: e.Expertise, LastSeen: e.LastSeen,
		Live: live.Live(e.LastSeen), State: e.State, Summary: e.Summary, StatusAt: e.StatusAt,
	})
}

// viewEntries is doc's entries that keep asks for, as the view carries them,
// judged by live.
func viewEntries(doc *registry.Doc, box string, live registry.Cutoff, keep func(name string, e *registry.Entry) bool) map[string]wire.ViewEntry {
	out := map[string]wire.ViewEntry{}
	for name, e := range doc.Agents {
		if keep == nil || keep(name, e) {
			out[name] = viewEntry(name, e, box, live)
		}
	}
	return out
}

// viewTold is what one link was last told of the view, and when.
type viewTold struct {
	viewState
	at time.Time
}

// viewState is a view as one end of a link holds it.
type viewState struct {
	entries map[string]wire.ViewEntry // nil: not even the full view yet
	rows    map[string]wire.ViewRow   // by Key
	boxes   []wire.ViewBox
}

// apply takes one view event, and says whether it started the view afresh (a
// full view, or the first event).
func (s *viewState) apply(ev wire.LinkView) (fresh bool) {
	fresh = ev.Full || s.entries == nil
	if fresh {
		s.entries, s.rows = map[string]wire.ViewEntry{}, map[string]wire.ViewRow{}
	}
	for _, h := range ev.Removed {
		delete(s.entries, h)
	}
	for _, e := range ev.Entries {
		s.entries[e.Handle] = e
	}
	for _, k := range ev.RowsRemoved {
		delete(s.rows, k)
	}
	for _, r := range ev.Rows {
		s.rows[r.Key()] = r
	}
	if ev.Boxes != nil {
		s.boxes = ev.Boxes
	}
	return fresh
}

// next is the event that takes the link from what it was told to now (entries
// by handle, rows by Key), and false when there is nothing to say or the last
// event went out under viewGap ago. The caller records a sent event with told.
func (t *viewTold) next(now map[string]wire.ViewEntry, rows map[string]wire.ViewRow, boxes []wire.ViewBox, at time.Time) (wire.LinkView, bool) {
	if t.entries != nil && at.Sub(t.at) < viewGap {
		return wire.LinkView{}, false
	}
	var ev wire.LinkView
	if t.entries == nil {
		ev.Full = true
	}
	ev.Entries, ev.Removed = viewdiff.Changes(t.entries, now, viewdiff.SameInView)
	ev.Rows, ev.RowsRemoved = viewdiff.Changes(t.rows, rows, viewdiff.SameViewRow)
	if boxes != nil && (ev.Full || !slices.Equal(boxes, t.boxes)) {
		ev.Boxes = boxes
	}
	if !ev.Full && len(ev.Entries) == 0 && len(ev.Removed) == 0 && len(ev.Rows) == 0 && len(ev.RowsRemoved) == 0 && ev.Boxes == nil {
		return wire.LinkView{}, false
	}
	return ev, true
}

// told records ev as sent at at. An entry left out as unchanged keeps the copy
// the link holds, so a last_seen creeping by under the grain each time is still
// sent once it has moved by the grain in all.
func (t *viewTold) told(ev wire.LinkView, at time.Time) {
	t.apply(ev)
	t.at = at
}

// sendView sends ev on c, split into events of at most viewChunk bytes of
// entries each, and returns the bytes sent (the payloads).
func sendView(c *link.Conn, ev wire.LinkView) (int, error) {
	n := 0
	for _, part := range SplitView(ev) {
		b, err := json.Marshal(part)
		if err != nil {
			return n, err
		}
		if err := c.SendEvent(wire.OpLinkView, json.RawMessage(b)); err != nil {
			return n, err
		}
		n += len(b)
	}
	return n, nil
}

// SplitView cuts ev into events whose entries and rows encode to at most
// viewChunk bytes each; only the first keeps Full, the removals and Boxes, so
// applied in order they make the same view.
func SplitView(ev wire.LinkView) []wire.LinkView {
	var out []wire.LinkView
	cur := wire.LinkView{Full: ev.Full, Removed: ev.Removed, RowsRemoved: ev.RowsRemoved, Boxes: ev.Boxes}
	size := 0
	room := func(v any) {
		b, _ := json.Marshal(v)
		if size > 0 && size+len(b) > viewChunk {
			out = append(out, cur)
			cur, size = wire.LinkView{}, 0
		}
		size += len(b)
	}
	for _, e := range ev.Entries {
		room(e)
		cur.Entries = append(cur.Entries, e)
	}
	for _, r := range ev.Rows {
		room(r)
		cur.Rows = append(cur.Rows, r)
	}
	return append(out, cur)
}

// netCopy is a guest's copy of the hub's merged view: every other box's
// entries and rows, and whether they are known now.
type netCopy struct {
	mu sync.Mutex
	viewState
	known bool      // a full view came over the link that is up now
	asOf  time.Time // when it was last known current: the link's end
	why   string    // why it is not known
}

// apply takes one of the hub's view events.
func (c *netCopy) apply(ev wire.LinkView) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.viewState.apply(ev) {
		c.known = true
	}
}

// lost marks the copy as no longer current: the link to the hub ended at at.
func (c *netCopy) lost(at time.Time, why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.known {
		c.asOf = at
	}
	c.known, c.entries, c.rows, c.why = false, nil, nil, why
}

// viewService runs the view's part of this daemon's role every viewEvery: the
// hub takes its own home's entries and tells each link what changed; a guest's
// directory does its own part.
func (n *Network) viewService(ctx context.Context) error {
	told := map[hub.Peer]*viewTold{}
	return ctxsleep.Every(ctx, viewEvery, func() { n.pushView(told) })
}

// pushView is one round of the hub's: its own entries and rows are read, and
// each link is told the merged view but for its own handles and rows.
func (n *Network) pushView(told map[hub.Peer]*viewTold) {
	now := n.now()
	v := n.router.View()
	if doc, err := n.reg.Read(); err == nil {
		v.SetOwn(viewEntries(doc, n.self, registry.LiveAt(now), nil), n.page.OwnRows())
	} else {
		n.log.Debug("the hub's own entries in the network view were not updated: the registry could not be read", "err", err)
	}
	peers := n.router.Peers(nil)
	live := map[hub.Peer]bool{}
	boxes := n.viewBoxes()
	for _, p := range peers {
		live[p] = true
		t := told[p]
		if t == nil {
			t = &viewTold{}
			told[p] = t
		}
		ev, ok := t.next(v.Entries(p, true), v.Rows(p, true), boxes, now)
		if !ok {
			continue
		}
		c, isConn := p.(*link.Conn)
		if !isConn {
			continue
		}
		if _, err := sendView(c, ev); err != nil {
			n.log.Debug("the network view was not sent", "box", p.Box(), "err", err)
			continue
		}
		t.told(ev, now)
	}
	for p := range told {
		if !live[p] {
			delete(told, p)
		}
	}
}

// viewBoxes is the hub's list of boxes: itself, and each box that should link
// or is linked, with its link's state.
func (n *Network) viewBoxes() []wire.ViewBox {
	boxes := []wire.ViewBox{{Box: n.self, Up: true, Since: n.book.born.UTC().Format(time.RFC3339)}}
	for _, s := range n.book.states(n.shouldLink(), nil) {
		b := wire.ViewBox{Box: s.Box, Up: s.Up, Reason: s.LastError}
		if t, err := time.Parse(time.RFC3339Nano, s.Since); err == nil {
			b.Since = t.UTC().Format(time.RFC3339)
		}
		if b.Up {
			b.Reason = ""
		}
		boxes = append(boxes, b)
	}
	return boxes
}

// onView takes a view event: on the hub a guest's own entries, on a guest the
// hub's merged view.
func (n *Network) onView(c *link.Conn, ev wire.Envelope) {
	var v wire.LinkView
	if err := wire.DecodePayload(ev.Payload, &v); err != nil {
		n.log.Info("a view event that could not be read was dropped", "box", c.Box(), "err", err)
		return
	}
	if h := n.hubLinkOf(c); h != nil {
		h.copy.apply(v)
		return
	}
	if n.router == nil {
		return // a link to a hub that ended meanwhile
	}
	if refused := n.router.View().Apply(c, v); refused > 0 {
		n.log.Warn("a box published view entries for handles it does not hold or with a state that is no work state, or rows under another box's name or past the bound; they were dropped", "box", c.Box(), "dropped", refused, "max_rows", hub.MaxRows)
	}
}

// List answers net.list: this box's registry, judged now, and every other
// box's entries as the hub's view holds them, local entries first; one page of
// them, after page.After. With page.Live the stale ones are counted in Stale,
// not sent.
func (n *Network) List(page wire.NetListPage) (any, error) {
	v, err := n.reg.View()
	if err != nil {
		return nil, refuse.Unreadable(wire.CodeUnreadable, "nothing can be listed", err)
	}
	doc, now := v.Doc, n.now()
	out := wire.NetList{Box: n.self, Boxes: []wire.ViewBox{}, Known: true, AsOf: now.UTC().Format(time.RFC3339)}
	live := registry.LiveAt(now)
	var all map[string]wire.ViewEntry
	if page.Live { // the stale are counted, not made into entries
		names := v.Live(live)
		all = make(map[string]wire.ViewEntry, len(names))
		for _, name := range names {
			if e := doc.Agents[name]; e != nil { // always: the index is the view's Doc's
				all[name] = viewEntry(name, e, n.self, live)
			}
		}
		out.Stale = len(doc.Agents) - len(names)
	} else {
		all = viewEntries(doc, n.self, live, nil)
	}
	var remote map[string]wire.ViewEntry
	switch {
	case n.router != nil:
		remote = n.router.View().Entries(nil, false)
		out.Boxes = n.viewBoxes()
		if len(n.hubs) > 0 {
			out.HubLinks = n.hubLinkStates()
		}
	case len(n.hubs) > 0:
		h := n.viewHub()
		out.Hub, out.HubLinks = h.name, n.hubLinkStates()
		h.copy.mu.Lock()
		out.Known, out.Why = h.copy.known, h.copy.why
		if out.Known {
			remote = maps.Clone(h.copy.entries)
			out.Boxes = slices.Clone(h.copy.boxes)
		} else if out.AsOf = ""; !h.copy.asOf.IsZero() {
			out.AsOf = h.copy.asOf.UTC().Format(time.RFC3339)
		}
		h.copy.mu.Unlock()
		if !out.Known && out.Why == "" {
			out.Why = "the link to the hub " + h.name + " has not come up yet"
			if err := h.keeper.LastError(); err != nil {
				out.Why += ": " + err.Error()
			}
		}
	default:
		out.Boxes = append(out.Boxes, wire.ViewBox{Box: n.self, Up: true})
	}
	for h, e := range remote {
		switch _, local := doc.Agents[h]; {
		case local:
		case page.Live && !e.Live:
			out.Stale++
		default:
			all[h] = e
		}
	}
	out.Entries, out.Next = entryPage(all, page.After, wire.NetListBudget)
	return out, nil
}

// entryPage is the entries after handle after, in handle order, that encode to at
// most budget bytes (one at least, so a page always moves on), and the last
// handle taken when more follow, else "".
func entryPage(all map[string]wire.ViewEntry, after string, budget int) ([]wire.ViewEntry, string) {
	out := []wire.ViewEntry{}
	size := 0
	for _, h := range slices.Sorted(maps.Keys(all)) {
		if h <= after {
			continue
		}
		b, _ := json.Marshal(all[h])
		if len(out) > 0 && size+len(b)+1 > budget {
			return out, out[len(out)-1].Handle
		}
		size += len(b) + 1 // its comma
		out = append(out, all[h])
	}
	return out, ""
}

// Page is what the status page shows of the network: the other boxes'
// entries and rows, and the list of boxes, from the network view.
func (n *Network) Page() page.Network {
	out := page.Network{Remote: map[string]wire.ViewEntry{}, Rows: map[string]wire.ViewRow{}, Boxes: web.Boxes{Known: true, List: []web.BoxState{}}}
	var list []wire.ViewBox
	switch {
	case n.router != nil:
		out.Remote = n.router.View().Entries(nil, false)
		out.Rows = n.router.View().Rows(nil, false)
		list = n.viewBoxes()
	case len(n.hubs) > 0:
		h := n.viewHub()
		h.copy.mu.Lock()
		out.Boxes.Known, out.Boxes.Why = h.copy.known, h.copy.why
		if out.Boxes.Known {
			out.Remote = maps.Clone(h.copy.entries)
			out.Rows = maps.Clone(h.copy.rows)
			list = slices.Clone(h.copy.boxes)
		} else if !h.copy.asOf.IsZero() {
			out.Boxes.AsOf = h.copy.asOf.UTC().Format(time.RFC3339)
		}
		h.copy.mu.Unlock()
		if !out.Boxes.Known {
			list = []wire.ViewBox{{Box: n.self, Up: true}, {Box: h.name, Up: false, Reason: out.Boxes.Why}}
		}
		for _, h := range n.hubs {
			if h.keeper.Current() != nil {
				continue
			}
			// A dial that failed made no link for the book to record: the
			// keeper's last error is why the link is down.
			why := "not linked yet"
			if err := h.keeper.LastError(); err != nil {
				why = err.Error()
			}
			if out.Down == nil {
				out.Down = map[string]string{}
			}
			out.Down[h.name] = why
		}
	default:
		list = []wire.ViewBox{{Box: n.self, Up: true}}
	}
	for _, b := range list {
		out.Boxes.List = append(out.Boxes.List, web.BoxState(b))
	}
	return out
}
