package hub

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/wire"
)

// MaxOffers bounds the offers in flight at once, across every request.
const MaxOffers = 64

// Peer is one linked box as the router sees it (a *link.Conn).
type Peer interface {
	Box() string
	Call(ctx context.Context, op string, req, resp any) error
	Done() <-chan struct{}
}

// Config is a Router's bounds and what it asks of the topology.
type Config struct {
	// Wait bounds one request's offers, from when they start: the inbox lock
	// wait plus 1 s (link.CallWait), so an appender that waited out the lock
	// and then filed is not reported silent.
	Wait time.Duration
	// MaxOffers bounds the offers in flight at once; default MaxOffers.
	MaxOffers int
	// ShouldLink lists the boxes that should hold a link to this hub
	// (topology.ShouldLink of the current hosts.toml); nil for none.
	ShouldLink func() []string
	Log        *slog.Logger
}

// Router is the hub's table of linked boxes and of the handles each holds, and
// the offers it makes to them.
type Router struct {
	cfg   Config
	log   *slog.Logger
	slots chan struct{} // offers in flight

	mu    sync.Mutex
	links map[string]Peer              // box -> its current link
	held  map[Peer]map[string]struct{} // what each link said it holds
	where map[string]map[Peer]struct{} // handle -> the links that said they hold it

	offers sync.WaitGroup // offers still running after their request was answered
}

// New makes a router with no links.
func New(cfg Config) *Router {
	if cfg.MaxOffers <= 0 {
		cfg.MaxOffers = MaxOffers
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Router{
		cfg:   cfg,
		log:   cfg.Log,
		slots: make(chan struct{}, cfg.MaxOffers),
		links: map[string]Peer{},
		held:  map[Peer]map[string]struct{}{},
		where: map[string]map[Peer]struct{}{},
	}
}

// Add takes a link that came up. A box that links again (it restarted before
// the hub saw its old link end) is reached over the newer link from now on.
func (r *Router) Add(p Peer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.links[p.Box()]; ok && old != p {
		r.log.Info("a box linked again; its newer link is used", "box", p.Box())
	}
	r.links[p.Box()] = p
}

// Remove forgets a link that ended, and every handle it said it held.
func (r *Router) Remove(p Peer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.links[p.Box()] == p {
		delete(r.links, p.Box())
	}
	r.forget(p)
}

// Directory applies a link's directory event: a full set replaces what that
// link said before, a change adds and removes handles. Events of a link that
// has ended are dropped, so a late one cannot outlive its Remove.
func (r *Router) Directory(p Peer, d wire.LinkDirectory) {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-p.Done():
		return
	default:
	}
	if d.Full {
		r.forget(p)
	}
	set := r.held[p]
	if set == nil {
		set = map[string]struct{}{}
		r.held[p] = set
	}
	for _, h := range d.Added {
		if home.CheckHandle(h) != nil {
			continue // no line could be routed to it anyway
		}
		set[h] = struct{}{}
		if r.where[h] == nil {
			r.where[h] = map[Peer]struct{}{}
		}
		r.where[h][p] = struct{}{}
	}
	for _, h := range d.Removed {
		delete(set, h)
		r.unindex(h, p)
	}
}

func (r *Router) forget(p Peer) {
	for h := range r.held[p] {
		r.unindex(h, p)
	}
	delete(r.held, p)
}

func (r *Router) unindex(h string, p Peer) {
	if ps := r.where[h]; ps != nil {
		delete(ps, p)
		if len(ps) == 0 {
			delete(r.where, h)
		}
	}
}

// Linked lists, sorted, the boxes linked now.
func (r *Router) Linked() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	boxes := make([]string, 0, len(r.links))
	for b := range r.links {
		boxes = append(boxes, b)
	}
	sort.Strings(boxes)
	return boxes
}

// Holder is the box the directory says holds handle, "" when no one linked box
// does.
func (r *Router) Holder(handle string) string {
	if p := r.holder(handle); p != nil {
		return p.Box()
	}
	return ""
}

// holder is the one linked box the directory says holds handle; nil when none
// does, or when more than one says so (then every box is asked).
func (r *Router) holder(handle string) Peer {
	r.mu.Lock()
	defer r.mu.Unlock()
	var found Peer
	for p := range r.where[handle] {
		if r.links[p.Box()] != p {
			continue
		}
		if found != nil {
			return nil
		}
		found = p
	}
	return found
}

// Peers is every linked box but skip (nil skips none), each over its current
// link: whom an offer, or a request for every box such as comm.receipts, asks.
func (r *Router) Peers(skip Peer) []Peer {
	r.mu.Lock()
	defer r.mu.Unlock()
	ps := make([]Peer, 0, len(r.links))
	for _, p := range r.links {
		if p != skip {
			ps = append(ps, p)
		}
	}
	return ps
}

// NotLinked lists the boxes that should hold a link and hold none.
func (r *Router) NotLinked() []string {
	if r.cfg.ShouldLink == nil {
		return nil
	}
	should := r.cfg.ShouldLink() // it may read hosts.toml: not under the lock
	r.mu.Lock()
	defer r.mu.Unlock()
	var missing []string
	for _, b := range should {
		if _, ok := r.links[b]; !ok {
			missing = append(missing, b)
		}
	}
	return missing
}

// Wait returns once every offer has ended, those still running after their
// request was answered (the first ok came) included.
func (r *Router) Wait() { r.offers.Wait() }
