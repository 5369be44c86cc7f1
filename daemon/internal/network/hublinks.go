package network

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/link"
	"github.com/sotcomm/sotd/presence"
	"github.com/sotcomm/sotd/topology"
	"github.com/sotcomm/sotd/wire"
)

// HubLink is this daemon's link to one hub of several (hosts.toml's hubs):
// what a guest of one hub keeps, once per hub. A guest links to every hub; a
// hub links to every other hub, as their guest, so its own handles are
// reached through them. Each hub builds its directory from its own links and
// checks each claim as it always did; no hub trusts another's directory.
type HubLink struct {
	name   string
	keeper *link.Keeper
	dir    *directory // tells this hub which handles this box holds
	copy   *netCopy   // this hub's merged view as it last said it

	mu   sync.Mutex
	conn *link.Conn // the link while up, set by the keeper's Up
	// shunUntil passes this hub over until then: it let a line go unanswered
	// past hedgeAfter while another hub answered, so it is likely down (a hub
	// killed outright is found dead only after three silent heartbeats).
	shunUntil time.Time
}

// hedgeAfter is how long a line waits for one hub before it is sent through
// another too, with the same message id (filed once whichever files it).
const hedgeAfter = time.Second

// shunFor is how long a hub that did not answer in time is tried last: about
// as long as its link takes to be found dead.
const shunFor = 15 * time.Second

// newHubLink makes the link to hub; nothing dials until start.
func (n *Network) newHubLink(hub string, book *linkBook) *HubLink {
	h := &HubLink{name: hub, copy: &netCopy{}}
	h.dir = &directory{reg: n.reg, box: n.self, log: n.log, every: directoryEvery, now: n.now, rows: n.page.OwnRows}
	h.keeper = &link.Keeper{
		Config:  link.Config{Box: n.self, Handler: n.Handle, OnEvent: n.onEvent, OnHealth: book.sampled, Log: n.log, Ticks: true},
		Resolve: func() (link.Target, error) { return n.resolve(hub) },
		Up: func(c *link.Conn) {
			h.setConn(c)
			h.dir.up(c)
			book.up(c)
		},
		Down: func(c *link.Conn) {
			h.setConn(nil)
			book.down(c)
			why := "the link to the hub " + c.Box() + " is down"
			if err := c.Err(); err != nil {
				why += ": " + err.Error()
			}
			h.copy.lost(n.now(), why)
		},
	}
	return h
}

func (h *HubLink) setConn(c *link.Conn) {
	h.mu.Lock()
	h.conn = c
	h.mu.Unlock()
}

// Conn is the link to this hub while it is up, else nil.
func (h *HubLink) Conn() *link.Conn {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.conn
}

// shunned says whether this hub is passed over now.
func (h *HubLink) shunned(now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return now.Before(h.shunUntil)
}

// shun passes this hub over for shunFor, or lets it be tried first again.
func (h *HubLink) shun(until time.Time) {
	h.mu.Lock()
	h.shunUntil = until
	h.mu.Unlock()
}

// Keeper is what keeps this link up, relinking when it ends.
func (h *HubLink) Keeper() *link.Keeper { return h.keeper }

// Names says whether this hub's view, as it last said it, lists handle.
func (h *HubLink) Names(handle string) bool {
	h.copy.mu.Lock()
	defer h.copy.mu.Unlock()
	_, ok := h.copy.entries[handle]
	return h.copy.known && ok
}

// Copy is this box's copy of this hub's view: whether it is known now, why
// not, and the handles it names.
func (h *HubLink) Copy() (known bool, why string, handles []string) {
	h.copy.mu.Lock()
	defer h.copy.mu.Unlock()
	return h.copy.known, h.copy.why, slices.Sorted(maps.Keys(h.copy.entries))
}

// hubLinkOf is the hub link c is of, by the hub it dialed; nil for a link
// this hub serves (a guest's, or another hub's as its guest). It holds from
// the link's first frame, before the keeper's Up has run.
func (n *Network) hubLinkOf(c *link.Conn) *HubLink {
	if !c.Dialed() {
		return nil
	}
	for _, h := range n.hubs {
		if h.name == c.Box() {
			return h
		}
	}
	return nil
}

// serves says whether a request or event over c comes from a box linked to
// this hub, which it routes or checks; else it comes from a hub this box links
// to, whose offers it only files, and whose word it takes.
func (n *Network) serves(c *link.Conn) bool {
	return n.router != nil && !c.Dialed()
}

// resolve is where the link to hub goes, read again before every attempt, with
// the key as it is on disk now.
func (n *Network) resolve(hub string) (link.Target, error) {
	t, _, err := topology.Load(n.hosts)
	if err != nil {
		return link.Target{}, err
	}
	self := n.self
	if t.IsHub(self) != (n.router != nil) {
		return link.Target{}, fmt.Errorf("hosts.toml changed whether this box, %s, is a hub; restart the daemon to take its new role", self)
	}
	if !slices.Contains(t.HubsOf(self), hub) {
		return link.Target{}, fmt.Errorf("hosts.toml no longer names %s as hub; restart the daemon to link to the hubs it names now (%s)", hub, strings.Join(t.HubNames(), ", "))
	}
	hh, ok := t.Host(hub)
	if !ok {
		return link.Target{}, fmt.Errorf("hosts.toml has no [host.%s] for its hub", hub)
	}
	id, err := identity.Load(n.home, self)
	if err != nil {
		return link.Target{}, err
	}
	return link.Target{Identity: id, Hub: hub, Addr: hh.Addr, WSAddr: hh.WSAddr, Key: hh.Key}, nil
}

// hubOrder lists the hubs up now in the order a line for to tries them: those
// whose view names to first, then the rest, hubs passed over last, each group
// in hosts.toml's order.
func (n *Network) hubOrder(to string) []*HubLink {
	now := time.Now() // shunning is wall time, whatever clock judges liveness
	rank := func(h *HubLink) int {
		r := 0
		if !h.Names(to) {
			r++
		}
		if h.shunned(now) {
			r += 2
		}
		return r
	}
	var up []*HubLink
	for _, h := range n.hubs {
		if h.Conn() != nil {
			up = append(up, h)
		}
	}
	slices.SortStableFunc(up, func(a, b *HubLink) int { return rank(a) - rank(b) })
	return up
}

// namedBy says whether a hub other than this box's own router names handle
// in its view: a line its own router holds nobody for goes there.
func (n *Network) namedBy(handle string) bool {
	for _, h := range n.hubs {
		if h.Conn() != nil && h.Names(handle) {
			return true
		}
	}
	return false
}

// hubNames lists the hubs this box links to.
func (n *Network) hubNames() []string {
	out := make([]string, len(n.hubs))
	for i, h := range n.hubs {
		out[i] = h.name
	}
	return out
}

// viewHub is the hub whose view this box shows: the first whose view is
// known now, else the first.
func (n *Network) viewHub() *HubLink {
	for _, h := range n.hubs {
		h.copy.mu.Lock()
		known := h.copy.known
		h.copy.mu.Unlock()
		if known {
			return h
		}
	}
	return n.hubs[0]
}

// oneHubPerFolder refuses to serve as a hub on a comm folder another hub of
// hosts.toml serves already (one folder shared over NFS): the folder's
// inbox-lock-manager record names one writer, its hub's, so a folder has one
// hub however many the network has.
func (n *Network) OneHubPerFolder() error {
	if !n.role.Serve || len(n.role.LinkTo) == 0 {
		return nil
	}
	h := n.home
	for _, other := range n.role.LinkTo {
		r, running, err := presence.Running(h, other)
		if err != nil || !running {
			continue
		}
		return fmt.Errorf("this comm folder, %s, is already served by the hub %s (pid %d, as %s records), and a folder keeps one hub: its inbox-lock-manager record names one writer; "+
			"a folder shared over NFS has one hub, the others a folder of their own. Give this box, %s, a comm folder on its own disk ($SOT_COMM_HOME), or take it out of hubs in hosts.toml and start it again as a guest",
			h.Dir, other, r.PID, presence.Record(h, other), n.self)
	}
	return nil
}

// attempt is one hub's answer to a forwarded line.
type attempt struct {
	hub *HubLink
	res wire.CommFiled
	err error
}

// forward sends req, marked forwarded, through a hub, and answers with that
// hub's verdict: through a hub whose view names the receiver, else any hub up.
// A hub that has not answered in hedgeAfter, whose link ends before it
// answers, or that knows no box holding the receiver, has the line sent once
// more through another hub, with the same message id: a line both file is
// filed once (the receiving inbox takes an id once). The answer is the first
// filed; else "may still be filed" when a hub gave none; else a refusal.
func (n *Network) forward(ctx context.Context, req wire.CommFile) (wire.CommFiled, error) {
	order := n.hubOrder(req.To)
	if len(order) == 0 {
		return wire.CommFiled{}, wire.Refuse(wire.CodeNotLinked, "this box, %s, holds no link to its %s, so @%s was not forwarded — nothing was appended; the link is retried by itself, and the daemon's log on %s says why it is down", n.self, hubWord(n.hubNames()), req.To, n.self)
	}
	for _, h := range order {
		h.dir.tell(req.From)
	}
	wait := n.offerWait + forwardGrace
	ctx, cancel := context.WithTimeout(ctx, wait+hedgeAfter)
	defer cancel()
	req.Forwarded = true
	answers := make(chan attempt, 2)
	send := func(h *HubLink, wait time.Duration) {
		go func() {
			res, err := n.through(ctx, h, req, wait)
			answers <- attempt{hub: h, res: res, err: err}
		}()
	}
	send(order[0], wait)
	var hedge <-chan time.Time
	if len(order) > 1 {
		t := time.NewTimer(hedgeAfter)
		defer t.Stop()
		hedge = t.C
	}
	var got []attempt
	out, second := 1, false
	trySecond := func() {
		if !second && len(order) > 1 {
			second = true
			out++
			send(order[1], wait)
		}
	}
	for out > 0 {
		select {
		case a := <-answers:
			out--
			got = append(got, a)
			if a.err == nil {
				n.settle(order, a.hub, second)
				return a.res, nil
			}
			if retryable(a.err) {
				trySecond()
			}
		case <-hedge:
			hedge = nil
			trySecond()
		}
	}
	return wire.CommFiled{}, verdict(req.To, got)
}

// settle notes which hub answered: when another was tried too because the
// first did not answer in time, the first is passed over for a while.
func (n *Network) settle(order []*HubLink, answered *HubLink, hedged bool) {
	answered.shun(time.Time{})
	if hedged && answered != order[0] {
		order[0].shun(time.Now().Add(shunFor))
		n.log.Info("a hub did not answer a line in time and another did; it is tried last for a while", "hub", order[0].name, "through", answered.name, "for", shunFor)
	}
}

// through sends req through hub h, once, and answers with h's verdict.
func (n *Network) through(ctx context.Context, h *HubLink, req wire.CommFile, wait time.Duration) (wire.CommFiled, error) {
	c := h.Conn()
	if c == nil {
		return wire.CommFiled{}, wire.Refuse(wire.CodeNotLinked, "the link to the hub %s went down before @%s was sent to it — nothing was sent there", h.name, req.To)
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
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

// retryable says whether a hub's answer leaves the line to another hub: it
// gave none, or its link went down, or it knows no box holding the receiver
// (its directory may lack a box that is relinking to it).
func retryable(err error) bool {
	r, ok := wire.RefusalOf(err)
	return ok && (r.Code == wire.CodeNoAnswer || r.Code == wire.CodeNotLinked || r.Code == wire.CodeNotHere)
}

// verdict is the answer when no hub filed the line: "may still be filed" when
// any hub gave no answer (it may have filed), else the first refusal but a
// hub's "no box knows" when another said more; with two hubs tried, the
// sentence names both.
func verdict(to string, got []attempt) error {
	pick := got[0]
	for _, a := range got[1:] {
		if rank(a.err) > rank(pick.err) {
			pick = a
		}
	}
	r, ok := wire.RefusalOf(pick.err)
	if !ok || len(got) < 2 {
		return pick.err
	}
	tried := make([]string, len(got))
	for i, a := range got {
		tried[i] = a.hub.name
	}
	out := *r
	out.Sentence += fmt.Sprintf(" (tried the hubs %s)", strings.Join(tried, " and "))
	return &out
}

// rank orders refusals by what they tell the sender: a line that may be filed
// first, then the receiving box's own refusal, then a hub's not knowing.
func rank(err error) int {
	r, ok := wire.RefusalOf(err)
	switch {
	case !ok:
		return 1
	case r.Code == wire.CodeNoAnswer:
		return 3
	case r.Code == wire.CodeNotHere || r.Code == wire.CodeNotLinked:
		return 0
	}
	return 2
}

// hubWord names this box's hubs: "hub forge", "hubs forge and kiln".
func hubWord(hubs []string) string {
	if len(hubs) == 1 {
		return "hub " + hubs[0]
	}
	return "hubs " + strings.Join(hubs, " and ")
}
