package daemon

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
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/hub"
	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/internal/backoff"
	"github.com/sotcomm/sotd/internal/logonce"
	"github.com/sotcomm/sotd/link"
	"github.com/sotcomm/sotd/topology"
	"github.com/sotcomm/sotd/wire"
)

// network is this daemon's part in a network of boxes, by its role: the hub
// serves links and routes what its folder does not hold (router); a guest keeps
// a link to its hub (keeper) and tells it which handles it holds (dir).
type network struct {
	d     *Daemon
	log   *slog.Logger
	role  topology.Role
	hosts string // hosts.toml's path; "" when there is no place for one

	router *hub.Router  // serving links
	keeper *link.Keeper // linking to a hub
	dir    *directory   // ditto
	copy   *netCopy     // ditto: the hub's merged view as it last said it
	book   *linkBook    // every link's state, for link.status and the page
	// offerWait bounds an offer or a forward: the inbox lock wait plus 1 s,
	// what the protocol gives them, so an appender that waited out the lock
	// and then filed is not reported silent.
	offerWait time.Duration

	hostsMu    sync.Mutex
	hostsLast  parsedHosts       // hosts.toml's last parse
	hostsFault logonce.Condition // hosts.toml does not read: said once, not at each handshake

	// Set by prepare, before any request is served.
	mgr    lockManager
	b      *batcher
	offers *batcher // files offers: a handle listed under this box, or not_here
}

// newNetwork reads hosts.toml and decides this daemon's role; nothing listens or
// dials until start. lockWait is the filer's bound on the inbox lock.
func (d *Daemon) newNetwork(lockWait time.Duration) *network {
	role := topology.Resolve(d.cfg.Home.Dir, d.cfg.Host, d.cfg.HostsPath, d.log)
	n := &network{d: d, log: d.log, role: role, hosts: d.cfg.HostsPath, book: newLinkBook(d.cfg.Now, d.view), offerWait: lockWait + time.Second}
	if id, err := identity.Load(d.cfg.Home, d.cfg.Host); err != nil {
		d.log.Error("this box has no usable key, so it can neither link nor be linked to", "err", err)
	} else {
		d.log.Info("this box's key", "box", id.Box, "key", id.Fingerprint())
	}
	switch {
	case role.Serve:
		own := &directory{reg: d.reg, box: d.cfg.Host}
		n.router = hub.New(hub.Config{Wait: n.offerWait, TickWait: tickWait, ShouldLink: n.shouldLink, Boxes: n.everyBox, Own: own.heldOrNone, Log: d.log})
	case role.LinkTo != "":
		n.dir = &directory{reg: d.reg, box: d.cfg.Host, log: d.log, every: directoryEvery, now: d.cfg.Now, rows: d.view.OwnRows}
		n.copy = &netCopy{}
		n.keeper = &link.Keeper{
			Config:  link.Config{Box: d.cfg.Host, Handler: n.handle, OnEvent: n.onEvent, OnHealth: n.book.sampled, Log: d.log, Ticks: true},
			Resolve: n.resolve,
			Up:      n.up,
			Down:    n.down,
		}
	}
	return n
}

// prepare gives the network what its requests file through: the daemon's
// lock manager and batcher, and a batcher of its own for offers.
func (n *network) prepare(mgr lockManager, f *filer.Filer, b *batcher) {
	n.mgr, n.b = mgr, b
	// Offers have a committer of their own, so that the own-box check is made
	// once per batch with the registry read the batch makes anyway; its appends
	// and b's for one inbox take turns at the inbox lock.
	n.offers = newBatcher(n.d.maxBatch, maxWaiting, n.log, func(handle string, lines []filer.Line) ([]filer.Result, error) {
		return n.d.fileBatch(mgr, f, handle, lines, true)
	})
}

// start runs the role's services under sup.
func (n *network) start(ctx context.Context, sup *supervisor) {
	if n.router != nil {
		sup.start(ctx, service{name: "links", run: n.serveLinks})
		sup.start(ctx, service{name: "network view", run: n.viewService})
	}
	if n.keeper != nil {
		sup.start(ctx, service{name: "link to " + n.role.LinkTo, run: n.keeper.Run, policy: link.Relink})
		sup.start(ctx, service{name: "directory", run: n.dir.run})
	}
}

// drain waits for the offers still running after their request was answered
// and for the offers' batcher; the links, which hand it offers, and the
// connections, which start offers, have ended before.
func (n *network) drain() {
	if n.router != nil {
		n.router.Wait()
	}
	n.offers.wait()
}

// serveLinks is the hub's link listener: it admits the boxes hosts.toml pins,
// at the address it gives this box, and keeps the router's table of them.
func (n *network) serveLinks(ctx context.Context) error {
	t, _, err := topology.Load(n.hosts)
	if err != nil {
		return err
	}
	hh, ok := t.HubHost()
	if !t.IsHub(n.d.cfg.Host) || !ok {
		return backoff.NoRestart(fmt.Errorf("hosts.toml no longer names this box, %s, as hub; restart the daemon to take its new role", n.d.cfg.Host))
	}
	id, err := identity.Load(n.d.cfg.Home, n.d.cfg.Host)
	if err != nil {
		return err
	}
	srv, err := link.Listen(link.ServerConfig{
		Config:   link.Config{Box: n.d.cfg.Host, Handler: n.handle, OnEvent: n.onEvent, OnHealth: n.book.sampled, Log: n.log, Ticks: true},
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
	}
}

// up takes a guest's new link to its hub: the directory is sent on it, and the
// book shows it up until the keeper says it is down.
func (n *network) up(c *link.Conn) {
	n.dir.up(c)
	n.book.up(c)
}

// down takes the end of a guest's link to its hub: the hub's view is no
// longer known.
func (n *network) down(c *link.Conn) {
	n.book.down(c)
	why := "the link to the hub " + c.Box() + " is down"
	if err := c.Err(); err != nil {
		why += ": " + err.Error()
	}
	n.copy.lost(n.d.cfg.Now(), why)
}

// pins asks hosts.toml, as it is now, which box a key is pinned to.
func (n *network) pins(fp string) (string, bool) {
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
func (n *network) shouldLink() []string { return n.hostsNow().boxes }

// everyBox lists every box hosts.toml names now (hostsNow), whose derived
// handles only that box may claim.
func (n *network) everyBox() []string { return n.hostsNow().all }

// parsedHosts is hosts.toml as last parsed, or why it did not parse.
type parsedHosts struct {
	stamp home.Stamp
	t     *topology.Topology
	boxes []string // t.ShouldLink()
	all   []string // every box it names
	err   error
	read  bool
}

// hostsNow is hosts.toml as it is now: parsed again only when the file changed
// (by its stat). The hub asks it at every handshake, a refused one included, so
// a peer that handshakes in a loop would have it parsed each time; and it names
// the boxes that should link in its answer to each line for a handle no box
// holds, where parsing a hosts.toml of 200 boxes was 80% of the hub's CPU.
func (n *network) hostsNow() parsedHosts {
	now := home.StampFollowing(n.hosts)
	n.hostsMu.Lock()
	defer n.hostsMu.Unlock()
	if n.hostsLast.read && now.Same(n.hostsLast.stamp) {
		return n.hostsLast
	}
	t, _, err := loadHosts(n.hosts)
	// Stamped before it was read: a change meanwhile is read again next time.
	n.hostsLast = parsedHosts{stamp: now, t: t, boxes: t.ShouldLink(), err: err, read: true}
	if t != nil {
		n.hostsLast.all = slices.Sorted(maps.Keys(t.Hosts))
	}
	return n.hostsLast
}

// loadHosts parses hosts.toml; a test counts the parses.
var loadHosts = topology.Load

// resolve is where a guest links, read again before every attempt, with the key
// as it is on disk now.
func (n *network) resolve() (link.Target, error) {
	t, _, err := topology.Load(n.hosts)
	if err != nil {
		return link.Target{}, err
	}
	if t.IsHub(n.d.cfg.Host) {
		return link.Target{}, fmt.Errorf("hosts.toml now names this box, %s, as hub; restart the daemon to serve links", n.d.cfg.Host)
	}
	hh, ok := t.HubHost()
	if !ok {
		return link.Target{}, fmt.Errorf("hosts.toml has no [host.%s] for its hub", t.Hub)
	}
	id, err := identity.Load(n.d.cfg.Home, n.d.cfg.Host)
	if err != nil {
		return link.Target{}, err
	}
	return link.Target{Identity: id, Hub: t.Hub, Addr: hh.Addr, WSAddr: hh.WSAddr, Key: hh.Key}, nil
}

// handle answers a request that came over a link: a guest's forward on the hub,
// the hub's offer on a guest, either one alone or gathered in a comm.file.batch,
// or either's comm.receipts. Whatever it says, it arrived forwarded, so it is
// never forwarded or offered on by a guest.
func (n *network) handle(ctx context.Context, c *link.Conn, op string, payload json.RawMessage) (any, error) {
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
	res, err := n.d.commFile(ctx, n.b, req, n.d.routeRegistry())
	if err != nil {
		return nil, err
	}
	return res, nil
}

// admit reads one comm.file request that came over link c, marked forwarded,
// and refuses one c may not make.
func (n *network) admit(ctx context.Context, c *link.Conn, payload json.RawMessage) (wire.CommFile, error) {
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
func (n *network) fileBatch(ctx context.Context, c *link.Conn, payload json.RawMessage) (any, error) {
	var b wire.CommFileBatch
	if err := wire.DecodePayload(payload, &b); err != nil {
		return nil, &wire.Refusal{Op: wire.OpCommFileBatch, Code: wire.CodeBadRequest, Sentence: err.Error()}
	}
	items := make([]wire.FiledItem, len(b.Requests))
	ahead := link.BatchItems(ctx, len(b.Requests))
	// One look at the registry, made after every request arrived, routes them all.
	reg := n.d.routeRegistry()
	var wg sync.WaitGroup
	if n.router != nil {
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
						items[i] = wire.ItemOf(n.d.commFile(ctx, n.b, reqs[i], reg))
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
			lines[i], err = n.d.lineOf(req)
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
			for k, o := range n.offers.fileAll(to, ls) {
				items[idx[k]] = wire.ItemOf(filedAs(to, o))
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
// on, and its own socket is its owner's.
func (n *network) mayActFor(ctx context.Context, c *link.Conn, handle string) error {
	if n.router == nil || handle == page.Sender(c.Box()) || n.router.Holds(ctx, c, handle, holdWait) {
		return nil
	}
	n.router.Warn(c, "a linked box asked to act for a handle it does not hold; refused", "handle", handle)
	return wire.Refuse(wire.CodeNotHolder, "the box %s does not hold @%s, so it cannot act for it — nothing was done; a box acts only for the handles its own registry lists under its name", c.Box(), handle)
}

// onEvent takes a guest's directory events on the hub, the hub's word on the
// claims it refused on a guest, and the view events of either end.
func (n *network) onEvent(c *link.Conn, ev wire.Envelope) {
	switch {
	case ev.Op == wire.OpLinkView:
		n.onView(c, ev)
	case ev.Op == wire.OpLinkClaims && n.router == nil:
		n.onRefusedClaims(c, ev)
	case ev.Op == wire.OpLinkDirectory && n.router != nil:
		n.onDirectory(c, ev)
	}
}

// onDirectory applies a guest's directory event on the hub, and tells the
// guest the claims it refused, so that box can say so.
func (n *network) onDirectory(c *link.Conn, ev wire.Envelope) {
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
func (n *network) onRefusedClaims(c *link.Conn, ev wire.Envelope) {
	var cl wire.LinkClaims
	if err := wire.DecodePayload(ev.Payload, &cl); err != nil || len(cl.Refused) == 0 {
		return
	}
	first := cl.Refused[0]
	n.log.Warn("the hub refused this box's claim on handles; mail to them does not reach this box", "hub", c.Box(), "refused", len(cl.Refused), "first", first.Handle, "holder", first.Holder, "why", first.Why)
	n.book.refusedClaims(c, cl.Refused)
}
