package network

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/sotcomm/sotd/link"
	"github.com/sotcomm/sotd/web"
	"github.com/sotcomm/sotd/wire"
)

// linkBook is this daemon's record of its links, by box: the one up now, since
// when each came up or went down, and why the last one ended. link.status and
// the status page are read from it.
type linkBook struct {
	now  func() time.Time
	view Page      // nil: no page
	born time.Time // when the daemon started: the since of a link never up

	mu    sync.Mutex
	boxes map[string]*linkEntry
}

type linkEntry struct {
	conn    *link.Conn // nil while down
	since   time.Time
	lastErr string              // why the last link ended; "" before one has
	refused []wire.RefusedClaim // the hub's last word on claims it refused over conn
}

func newLinkBook(now func() time.Time, view Page) *linkBook {
	return &linkBook{now: now, view: view, born: now(), boxes: map[string]*linkEntry{}}
}

// up records a link that came up; a box that links again replaces its older
// link, as the router does. The link's first sample may already be taken: it
// is shown here, as sampled ignores a link not yet recorded. Each change is
// published with b.mu held, so the page sees them in the order they were made.
func (b *linkBook) up(c *link.Conn) {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.entry(c.Box())
	e.conn, e.since, e.refused = c, now, nil
	b.show(pageLink(c, c.Health(), now))
}

// show publishes a link's change on the page; a hub's book of its own links
// to the other hubs has no page (their links to it are on it).
func (b *linkBook) show(l web.Link) {
	if b.view != nil {
		b.view.SetLink(l)
	}
}

// down records a link that ended, unless a newer one of its box is up.
func (b *linkBook) down(c *link.Conn) {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.entry(c.Box())
	if e.conn != c {
		return
	}
	e.conn, e.since = nil, now
	if err := c.Err(); err != nil {
		e.lastErr = err.Error()
	}
	b.show(web.Link{Peer: c.Box(), Up: false, Since: now, Reason: e.lastErr})
}

// sampled shows a link's new round trip on the page (the link's OnHealth).
func (b *linkBook) sampled(c *link.Conn, h link.Health) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e := b.entry(c.Box()); e.conn == c {
		b.show(pageLink(c, h, e.since))
	}
}

// refusedClaims records the hub's word, over c, on the claims of this box's
// that it refused.
func (b *linkBook) refusedClaims(c *link.Conn, refused []wire.RefusedClaim) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e := b.entry(c.Box()); e.conn == c {
		e.refused = refused
	}
}

// pageLink is an up link as the page shows it.
func pageLink(c *link.Conn, h link.Health, since time.Time) web.Link {
	l := web.Link{Peer: c.Box(), Up: true, Transport: c.Transport(), Since: since}
	if h.Samples > 0 {
		l.RTTMillis, l.OffsetMillis = millis(h.RTT), millis(h.Offset)
	}
	return l
}

// entry is box's record, made on first use; b.mu is held.
func (b *linkBook) entry(box string) *linkEntry {
	e := b.boxes[box]
	if e == nil {
		e = &linkEntry{since: b.born}
		b.boxes[box] = e
	}
	return e
}

// states lists the links of should, and any other up now, sorted by box.
// lastErr, when set, says why a box's link is down better than the book can
// (a guest's failed dials never made a link to record).
func (b *linkBook) states(should []string, lastErr func(box string) string) []wire.LinkState {
	b.mu.Lock()
	defer b.mu.Unlock()
	boxes := map[string]bool{}
	for _, box := range should {
		boxes[box] = true
	}
	for box, e := range b.boxes {
		if e.conn != nil {
			boxes[box] = true
		}
	}
	out := []wire.LinkState{}
	for _, box := range slices.Sorted(maps.Keys(boxes)) {
		e := b.entry(box)
		s := wire.LinkState{Box: box, Up: e.conn != nil, Since: e.since.UTC().Format(time.RFC3339Nano), LastError: e.lastErr}
		if lastErr != nil {
			s.LastError = lastErr(box)
		}
		if e.conn != nil {
			s.Transport, s.RefusedClaims = e.conn.Transport(), e.refused
			if h := e.conn.Health(); h.Samples > 0 {
				rtt, off := millis(h.RTT), millis(h.Offset)
				s.RTTMillis, s.OffsetMillis = &rtt, &off
			}
		}
		out = append(out, s)
	}
	return out
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Status answers link.status: the links this daemon's role should hold,
// and how each is now.
func (n *Network) Status() (any, error) {
	st := wire.LinkStatus{Role: wire.LinkRoleStandalone, Reason: n.role.Reason}
	switch {
	case n.router != nil:
		st.Role = wire.LinkRoleHub
		st.Links = n.book.states(n.shouldLink(), nil)
		if len(n.hubs) > 0 {
			st.HubLinks = n.hubLinkStates()
		}
	case len(n.hubs) > 0:
		st.Role = wire.LinkRoleGuest
		st.Links = n.hubLinkStates()
		st.HubLinks = st.Links
	default:
		st.Links = []wire.LinkState{}
	}
	return st, nil
}

// hubLinkStates is the state of each link to a hub this daemon dials, in
// hosts.toml's order.
func (n *Network) hubLinkStates() []wire.LinkState {
	book := n.book
	if n.hubBook != nil {
		book = n.hubBook
	}
	all := book.states(n.hubNames(), func(box string) string {
		for _, h := range n.hubs {
			if h.name != box {
				continue
			}
			if err := h.keeper.LastError(); err != nil {
				return err.Error()
			}
		}
		return ""
	})
	out := make([]wire.LinkState, 0, len(n.hubs))
	for _, h := range n.hubs {
		for _, s := range all {
			if s.Box == h.name {
				out = append(out, s)
			}
		}
	}
	return out
}
