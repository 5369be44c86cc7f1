package network

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/page"
	"github.com/sotcomm/sotd/daemon/internal/regcache"
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/hub"
	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/internal/backoff"
	"github.com/sotcomm/sotd/internal/logonce"
	"github.com/sotcomm/sotd/link"
	"github.com/sotcomm/sotd/topology"
	"github.com/sotcomm/sotd/web"
	"github.com/sotcomm/sotd/wire"
)

// Network is this daemon's part in a network of boxes, by its role: a hub
// serves links and routes what its folder does not hold (router); a guest keeps
// a link to each hub (hubs) and tells each which handles it holds. A hub of
// several links to the others as their guest too.
type Network struct {
	log   *slog.Logger
	role  topology.Role
	self  string // this box's name
	hosts string // hosts.toml's path; "" when there is no place for one
	home  home.Home
	now   func() time.Time // judges liveness, stamps lines and links
	reg   *regcache.Cache  // the daemon's registry cache
	page  Page             // this box's status page
	ep    Endpoint         // the daemon's filing

	router *hub.Router // serving links
	hubs   []*HubLink  // linking to hubs, in hosts.toml's order (hublinks.go)
	book   *linkBook   // every link's state, for link.status and the page
	// hubBook is a hub's record of its own links to the other hubs, apart from
	// book, which holds their links to it under the same box names.
	hubBook *linkBook
	// offerWait bounds an offer or a forward: the inbox lock wait plus 1 s,
	// what the protocol gives them, so an appender that waited out the lock
	// and then filed is not reported silent.
	offerWait time.Duration

	hostsMu    sync.Mutex
	hostsLast  parsedHosts       // hosts.toml's last parse
	hostsFault logonce.Condition // hosts.toml does not read: said once, not at each handshake
}

// Config is what the network runs with, all of it the daemon's.
type Config struct {
	Home      home.Home
	Host      string
	HostsPath string
	Now       func() time.Time
	Log       *slog.Logger
	// LockWait is the filer's bound on the inbox lock.
	LockWait time.Duration
	Reg      *regcache.Cache
	Page     Page
	// Endpoint files what the network routes here; it is asked only once
	// requests are served, so it may be made ready after New.
	Endpoint Endpoint
}

// Page is what the network shows on, and reads from, the status page.
type Page interface {
	SetLink(l web.Link)               // a link's change
	OwnRows() map[string]wire.ViewRow // this box's rows, by Key, as the view carries them
}

// Endpoint is what the network needs of the daemon it runs in: its group
// commit, and its inbox lock's record.
type Endpoint interface {
	// Commit files lines for handle's inbox, group-committed with the other
	// lines waiting for it, and answers each one when it is durable, or
	// refused. An offer is filed only for a handle this box's registry lists
	// under this box, else refused not_here; offers have a committer of their
	// own, so that check is made once per batch.
	Commit(handle string, lines []filer.Line, offer bool) []Filed
	// OwnLock says whether the folder's inbox-lock-manager record names this
	// daemon's inbox lock.
	OwnLock() bool
}

// Filed is one line's answer from the group commit.
type Filed struct {
	Res wire.CommFiled
	Err error
}

// New reads hosts.toml and decides this daemon's role; nothing listens or
// dials until its services run.
func New(cfg Config) *Network {
	role := topology.Resolve(cfg.Home.Dir, cfg.Host, cfg.HostsPath, cfg.Log)
	n := &Network{log: cfg.Log, role: role, self: cfg.Host, hosts: cfg.HostsPath, home: cfg.Home, now: cfg.Now, reg: cfg.Reg, page: cfg.Page, ep: cfg.Endpoint,
		book: newLinkBook(cfg.Now, cfg.Page), offerWait: cfg.LockWait + time.Second}
	if id, err := identity.Load(cfg.Home, cfg.Host); err != nil {
		n.log.Error("this box has no usable key, so it can neither link nor be linked to", "err", err)
	} else {
		n.log.Info("this box's key", "box", id.Box, "key", id.Fingerprint())
	}
	book := n.book
	if role.Serve {
		own := &directory{reg: cfg.Reg, box: cfg.Host}
		n.router = hub.New(hub.Config{Wait: n.offerWait, TickWait: tickWait, ShouldLink: n.shouldLink, Boxes: n.everyBox, Own: own.heldOrNone, Log: n.log})
		n.hubBook = newLinkBook(cfg.Now, nil)
		book = n.hubBook
	}
	for _, h := range role.LinkTo {
		n.hubs = append(n.hubs, n.newHubLink(h, book))
	}
	return n
}

// Router is the hub's router of its links; nil on a box that is no hub.
func (n *Network) Router() *hub.Router { return n.router }

// HubLinks are this box's links to its hubs, in hosts.toml's order.
func (n *Network) HubLinks() []*HubLink { return n.hubs }

// Role is this daemon's role, as hosts.toml gave it at start.
func (n *Network) Role() topology.Role { return n.role }

// Service is one of the network's long-running parts, for the daemon's
// supervisor: Run works until ctx ends; Policy, when set, is when it runs
// again after a failure.
type Service struct {
	Name   string
	Run    func(ctx context.Context) error
	Policy backoff.Policy
}

// Services are the role's services: the hub's link listener and view, and
// each hub link's keeper and directory.
func (n *Network) Services() []Service {
	var out []Service
	if n.router != nil {
		out = append(out, Service{Name: "links", Run: n.serveLinks}, Service{Name: "network view", Run: n.viewService})
	}
	for _, h := range n.hubs {
		out = append(out, Service{Name: "link to " + h.name, Run: h.keeper.Run, Policy: link.Relink}, Service{Name: "directory for " + h.name, Run: h.dir.run})
	}
	return out
}

// Drain waits for the hub's offers still running after their request was
// answered; the links, which hand it offers, and the connections, which start
// offers, have ended before.
func (n *Network) Drain() {
	if n.router != nil {
		n.router.Wait()
	}
}

// serveLinks is the hub's link listener: it admits the boxes hosts.toml pins,
// at the address it gives this box, and keeps the router's table of them.
func (n *Network) serveLinks(ctx context.Context) error {
	t, _, err := topology.Load(n.hosts)
	if err != nil {
		return err
	}
	hh, ok := t.Host(n.self)
	if !t.IsHub(n.self) || !ok {
		return backoff.NoRestart(fmt.Errorf("hosts.toml no longer names this box, %s, as hub; restart the daemon to take its new role", n.self))
	}
	id, err := identity.Load(n.home, n.self)
	if err != nil {
		return err
	}
	srv, err := link.Listen(link.ServerConfig{
		Config:   link.Config{Box: n.self, Handler: n.Handle, OnEvent: n.onEvent, OnHealth: n.book.sampled, Log: n.log, Ticks: true},
		Identity: id,
		Pins:     n.pins,
		Addr:     hh.Addr,
		WSAddr:   hh.WSAddr,
	})
	if err != nil {
		return err
	}
	var watch sync.WaitGroup
	defer func() {
		srv.Close() // ends every link, so every watcher below returns
		watch.Wait()
	}()
	for {
		c, err := srv.Accept(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		n.router.Add(c)
		n.book.up(c)
		watch.Go(func() {
			<-c.Done()
			n.router.Remove(c)
			n.book.down(c)
		})
		c.Start() // registered: its first directory event finds it so
	}
}

// pins asks hosts.toml, as it is now, which box a key is pinned to.
func (n *Network) pins(fp string) (string, bool) {
	p := n.hostsNow()
	if p.err != nil {
		n.hostsFault.Fail(n.log, slog.LevelWarn, "hosts.toml could not be read, so no box is admitted", p.err)
		return "", false
	}
	n.hostsFault.Clear(n.log, "hosts.toml reads again")
	return p.t.BoxWithKey(fp)
}

// shouldLink lists the boxes that should hold a link, by hosts.toml as it is
// now (hostsNow).
func (n *Network) shouldLink() []string { return n.hostsNow().boxes }

// everyBox lists every box hosts.toml names now (hostsNow), whose derived
// handles only that box may claim.
func (n *Network) everyBox() []string { return n.hostsNow().all }

// parsedHosts is hosts.toml as last parsed, or why it did not parse.
type parsedHosts struct {
	stamp home.Stamp
	t     *topology.Topology
	boxes []string // t.ShouldLinkTo(this box)
	all   []string // every box it names
	err   error
	read  bool
}

// hostsNow is hosts.toml as it is now: parsed again only when the file changed
// (by its stat). The hub asks it at every handshake, a refused one included, so
// a peer that handshakes in a loop would have it parsed each time; and it names
// the boxes that should link in its answer to each line for a handle no box
// holds, where parsing a hosts.toml of 200 boxes was 80% of the hub's CPU.
func (n *Network) hostsNow() parsedHosts {
	now := home.StampFollowing(n.hosts)
	n.hostsMu.Lock()
	defer n.hostsMu.Unlock()
	if n.hostsLast.read && now.Same(n.hostsLast.stamp) {
		return n.hostsLast
	}
	t, _, err := loadHosts(n.hosts)
	// Stamped before it was read: a change meanwhile is read again next time.
	n.hostsLast = parsedHosts{stamp: now, t: t, boxes: t.ShouldLinkTo(n.self), err: err, read: true}
	if t != nil {
		n.hostsLast.all = slices.Sorted(maps.Keys(t.Hosts))
	}
	return n.hostsLast
}

// loadHosts parses hosts.toml; a test counts the parses.
var loadHosts = topology.Load

// Handle answers a request that came over a link (link.Config.Handler): a guest's forward on the hub,
// the hub's offer on a guest, either one alone or gathered in a comm.file.batch,
// or either's comm.receipts. Whatever it says, it arrived forwarded, so it is
// never forwarded or offered on by a guest.
func (n *Network) Handle(ctx context.Context, c *link.Conn, op string, payload json.RawMessage) (any, error) {
	switch op {
	case wire.OpCommReceipts:
		return n.receipts(ctx, c, payload)
	case wire.OpCommFileBatch:
		return n.fileBatch(ctx, c, payload)
	case wire.OpCommFile:
	default:
		return nil, &wire.Refusal{Op: op, Code: wire.CodeUnknownOp, Sentence: "unknown op: " + op}
	}
	req, err := n.admit(ctx, c, payload)
	if err != nil {
		return nil, err
	}
	// From a box this hub serves, a line to route; else an offer, filed only
	// for a handle this box holds (route).
	res, err := n.file(ctx, req, n.routeRegistry(), !n.serves(c))
	if err != nil {
		return nil, err
	}
	return res, nil
}

// admit reads one comm.file request that came over link c, marked forwarded,
// and refuses one c may not make.
func (n *Network) admit(ctx context.Context, c *link.Conn, payload json.RawMessage) (wire.CommFile, error) {
	req, err := forwarded(payload)
	if err == nil {
		err = n.mayActFor(ctx, c, req.From)
	}
	return req, err
}

// forwarded reads one comm.file request that came over a link, marked
// forwarded.
func forwarded(payload json.RawMessage) (wire.CommFile, error) {
	var req wire.CommFile
	if err := wire.DecodePayload(payload, &req); err != nil {
		return req, &wire.Refusal{Op: wire.OpCommFile, Code: wire.CodeBadRequest, Sentence: err.Error()}
	}
	req.Forwarded = true
	return req, nil
}

// fileBatch answers a comm.file.batch: each request as its own comm.file would
// be answered, each as soon as it is (link.BatchItems, on a link that takes
// it), and all at once in the batch's answer. On the hub each goes its own way
// (its folder, or its holder's link, which gathers what goes to one box
// again); on a guest, where every one is an offer, the lines for one inbox are
// queued together, so they go in one group commit, and are answered together.
func (n *Network) fileBatch(ctx context.Context, c *link.Conn, payload json.RawMessage) (any, error) {
	var b wire.CommFileBatch
	if err := wire.DecodePayload(payload, &b); err != nil {
		return nil, &wire.Refusal{Op: wire.OpCommFileBatch, Code: wire.CodeBadRequest, Sentence: err.Error()}
	}
	items := make([]wire.FiledItem, len(b.Requests))
	ahead := link.BatchItems(ctx, len(b.Requests))
	// One look at the registry, made after every request arrived, routes them all.
	reg := n.routeRegistry()
	var wg sync.WaitGroup
	if n.serves(c) {
		// The requests are read here, one after another, and grouped by
		// sender: each sender is checked once (it may wait for the directory
		// that names it), and each request of a sender the box holds then
		// waits for its box's answer on its own.
		reqs := make([]wire.CommFile, len(b.Requests))
		bySender := map[string][]int{}
		for i, raw := range b.Requests {
			req, err := forwarded(raw)
			if err != nil {
				items[i] = wire.ItemOf(wire.CommFiled{}, err)
				ahead.Answer(wire.IndexedItem{Index: i, FiledItem: items[i]})
				continue
			}
			reqs[i] = req
			bySender[req.From] = append(bySender[req.From], i)
		}
		for from, idx := range bySender {
			wg.Go(func() {
				if err := n.mayActFor(ctx, c, from); err != nil {
					refused := make([]wire.IndexedItem, len(idx))
					for k, i := range idx {
						items[i] = wire.ItemOf(wire.CommFiled{}, err)
						refused[k] = wire.IndexedItem{Index: i, FiledItem: items[i]}
					}
					ahead.Answer(refused...)
					return
				}
				for _, i := range idx {
					wg.Go(func() {
						items[i] = wire.ItemOf(n.file(ctx, reqs[i], reg, false))
						ahead.Answer(wire.IndexedItem{Index: i, FiledItem: items[i]})
					})
				}
			})
		}
		wg.Wait()
		return wire.CommFiledBatch{Results: items}, nil
	}
	lines := make([]filer.Line, len(b.Requests))
	inboxes := map[string][]int{} // handle -> the items for its inbox
	var refused []wire.IndexedItem
	for i, raw := range b.Requests {
		req, err := n.admit(ctx, c, raw)
		if err == nil {
			lines[i], err = n.lineOf(req)
		}
		if err == nil && !reg.lists(req.To, true) {
			err = wire.NoBoxKnows(req.To, nil)
		}
		if err != nil {
			items[i] = wire.ItemOf(wire.CommFiled{}, err)
			refused = append(refused, wire.IndexedItem{Index: i, FiledItem: items[i]})
			continue
		}
		inboxes[req.To] = append(inboxes[req.To], i)
	}
	ahead.Answer(refused...)
	for to, idx := range inboxes {
		wg.Go(func() {
			ls := make([]filer.Line, len(idx))
			for k, i := range idx {
				ls[k] = lines[i]
			}
			answered := make([]wire.IndexedItem, len(idx))
			for k, o := range n.ep.Commit(to, ls, true) {
				items[idx[k]] = wire.ItemOf(o.Res, o.Err)
				answered[k] = wire.IndexedItem{Index: idx[k], FiledItem: items[idx[k]]}
			}
			ahead.Answer(answered...)
		})
	}
	wg.Wait()
	return wire.CommFiledBatch{Results: items}, nil
}

// holdWait bounds how long the hub waits for a guest's directory to name the
// sender of its request: the guest sends that update before the request, on
// another stream, so it lags by a round trip at most.
const holdWait = time.Second

// mayActFor refuses a linked box's request on behalf of a handle it does not
// hold, other than its own page's sender (page.Sender). On the hub every request
// from a guest must name one of the guest's own handles; a guest takes its
// hub's word, since the hub checked the box that asked before it asked anyone
// on, and its own socket is its owner's (so does a hub, over its link to
// another hub).
func (n *Network) mayActFor(ctx context.Context, c *link.Conn, handle string) error {
	if !n.serves(c) || handle == page.Sender(c.Box()) || n.router.Holds(ctx, c, handle, holdWait) {
		return nil
	}
	n.router.Warn(c, "a linked box asked to act for a handle it does not hold; refused", "handle", handle)
	return wire.Refuse(wire.CodeNotHolder, "the box %s does not hold @%s, so it cannot act for it — nothing was done; a box acts only for the handles its own registry lists under its name", c.Box(), handle)
}

// onEvent takes a guest's directory events on the hub, the hub's word on the
// claims it refused on a guest, and the view events of either end.
func (n *Network) onEvent(c *link.Conn, ev wire.Envelope) {
	switch {
	case ev.Op == wire.OpLinkView:
		n.onView(c, ev)
	case ev.Op == wire.OpLinkClaims && !n.serves(c):
		n.onRefusedClaims(c, ev)
	case ev.Op == wire.OpLinkDirectory && n.serves(c):
		n.onDirectory(c, ev)
	}
}

// onDirectory applies a guest's directory event on the hub, and tells the
// guest the claims it refused, so that box can say so.
func (n *Network) onDirectory(c *link.Conn, ev wire.Envelope) {
	var d wire.LinkDirectory
	if err := wire.DecodePayload(ev.Payload, &d); err != nil {
		n.log.Info("a directory event that could not be read was dropped", "box", c.Box(), "err", err)
		return
	}
	var refused *hub.Refused
	if errors.As(n.router.Directory(c, d), &refused) {
		if err := c.SendEvent(wire.OpLinkClaims, wire.LinkClaims{Refused: refused.Claims}); err != nil {
			n.log.Info("a box was not told of its refused claims", "box", c.Box(), "err", err)
		}
	}
}

// onRefusedClaims takes the hub's word, on a guest, on the claims of this
// box's that it refused: mail to those handles does not reach this box, which
// its log, link.status and sotd doctor say.
func (n *Network) onRefusedClaims(c *link.Conn, ev wire.Envelope) {
	var cl wire.LinkClaims
	if err := wire.DecodePayload(ev.Payload, &cl); err != nil || len(cl.Refused) == 0 {
		return
	}
	first := cl.Refused[0]
	n.log.Warn("the hub refused this box's claim on handles; mail to them does not reach this box", "hub", c.Box(), "refused", len(cl.Refused), "first", first.Handle, "holder", first.Holder, "why", first.Why)
	book := n.book
	if n.hubBook != nil {
		book = n.hubBook
	}
	book.refusedClaims(c, cl.Refused)
}
