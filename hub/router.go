package hub

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/nolog"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// Per-link bounds, so one box (a compromised one, or one that stopped answering)
// can neither hold every offer slot nor grow the hub's directory without limit.
const (
	// MaxOffers bounds the offers in flight at once to one linked box, across
	// every request.
	MaxOffers = 64
	// MaxHandles bounds the handles one linked box may hold.
	MaxHandles = 4096
	// MaxChange bounds the handles one directory event may add or remove.
	MaxChange = 4096
	// KeptFor is how long a handle stays its last holder's after that box's
	// link ends: its box, linking again within it, takes the handle back, and
	// no other box can take it meanwhile, so a link's blip or a box's restart
	// never hands its handles to a box that claims them in a loop.
	KeptFor = 2 * time.Minute
)

// Peer is one linked box as the router sees it (a *link.Conn).
type Peer interface {
	Box() string
	Call(ctx context.Context, op string, req, resp any) error
	// File is a comm.file Call that the link may gather with others made at
	// once into one frame (link.Conn.File), answered on its own.
	File(ctx context.Context, req wire.CommFile) (wire.CommFiled, error)
	// Go sends a request without waiting for its answer (link.Conn.Go): done
	// gets nil once resp holds the answer, else the refusal or why none came,
	// once and without blocking; cancel gives up on it.
	Go(op string, req, resp any, done func(error)) (cancel func())
	Done() <-chan struct{}
	// Ticks says the box promised a directory event on every registry poll
	// (link.Conn.Ticks): once its full set came, its directory is complete as
	// of its last event.
	Ticks() bool
	// RTT is the link's last measured round trip, 0 before any (link.Conn.RTT):
	// an event that arrived twice that after a line did was sent after it.
	RTT() time.Duration
}

// Config is a Router's bounds and what it asks of the topology.
type Config struct {
	// Wait bounds one request's offers, from when they start: the inbox lock
	// wait plus 1 s, so an appender that waited out the lock and then filed is
	// not reported silent.
	Wait time.Duration
	// MaxOffers bounds the offers in flight at once to one box; default
	// MaxOffers.
	MaxOffers int
	// MaxHandles bounds the handles one box may hold; default MaxHandles.
	MaxHandles int
	// Own lists the handles the hub's own folder lists under the hub's own box:
	// they are the hub's, and no linked box may claim them. nil: none.
	Own func() map[string]bool
	// TickWait bounds how long a line for a handle no directory names waits
	// for each ticking box's next directory event (Offer): two of its polls
	// and a margin. It is kept to three quarters of Wait, so a box that did
	// not tick in time is still offered the line within Wait. Zero: no box's
	// tick is waited for, and every box is offered such a line.
	TickWait time.Duration
	// ShouldLink lists the boxes that should hold a link to this hub
	// (topology.ShouldLink of the current hosts.toml); nil for none.
	ShouldLink func() []string
	// Boxes lists every box hosts.toml names, the hub's own included: a
	// derived handle (<folder>-<box>, registry.Tiers) names its box, and
	// only that box may claim it. nil: none.
	Boxes func() []string
	// KeptFor is how long a handle stays its last holder's box's after its
	// link ends; default KeptFor.
	KeptFor time.Duration
	// Now is the clock the router's own readings of when take (a kept
	// handle's end, a held-back warning, the negative cache, when a line and
	// a directory event arrived); nil: time.Now. The waits it bounds (Wait,
	// TickWait, Holds) run on real timers whatever it says.
	Now func() time.Time
	Log *slog.Logger
}

// Router is the hub's table of linked boxes and of the handles each holds, and
// the offers it makes to them.
//
// A pinned box is trusted only for the handles it holds: a handle has one
// holder, the first live link to claim it, and a second claim while that link is
// up is refused and logged (a legitimate move drops the handle first, or its
// link ends and KeptFor passes: a handle stays its box's for that long after
// its link ends, so a box that relinks takes it back and a flap hands it to no
// one). A handle derived for another box of hosts.toml (<folder>-<box>) is
// that box's alone to claim. Boxes that share one comm folder are told apart
// by the host each registry entry names: a box claims only the entries listed
// under its own name.
type Router struct {
	cfg Config
	log *slog.Logger

	mu      sync.Mutex
	links   map[string]Peer              // box -> its current link
	slots   map[Peer]*semaphore.Weighted // each link's offers in flight
	held    map[Peer]map[string]struct{} // what each link holds
	holders map[string]Peer              // handle -> the one link that holds it
	ticks   map[Peer]*tick               // the links that promised ticks
	waiting map[*waiter]struct{}         // lines waiting for ticks (awaitTicks)
	changed chan struct{}                // closed, and replaced, at each directory change
	// kept is each handle whose holder's link ended within KeptFor, with
	// that box: only it may claim the handle until then.
	kept map[string]kept
	// quiet is each link's repeated misdeeds: warnings held back, refused
	// claims counted, requests parked (quiet.go).
	quiet map[Peer]*quiet
	// unheld is the negative cache: handles every linked box answered
	// not_here (see Offer). A link coming up or any directory event empties
	// it, since either may name one of them; so does a link that ends, since
	// its box is then one the cached answer must name as not linked.
	unheld map[string]unheld
	gen    uint64 // counts the events that empty unheld

	view *View // what each link published for the handles it holds

	derived derivedMemo // the derived handles' suffix of each box of hosts.toml

	offers sync.WaitGroup // offers still running after their request was answered
}

// New makes a router with no links.
func New(cfg Config) *Router {
	if cfg.MaxOffers <= 0 {
		cfg.MaxOffers = MaxOffers
	}
	if cfg.MaxHandles <= 0 {
		cfg.MaxHandles = MaxHandles
	}
	if cfg.KeptFor <= 0 {
		cfg.KeptFor = KeptFor
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Log = nolog.Or(cfg.Log)
	r := &Router{
		cfg:     cfg,
		log:     cfg.Log,
		links:   map[string]Peer{},
		slots:   map[Peer]*semaphore.Weighted{},
		held:    map[Peer]map[string]struct{}{},
		unheld:  map[string]unheld{},
		kept:    map[string]kept{},
		quiet:   map[Peer]*quiet{},
		holders: map[string]Peer{},
		ticks:   map[Peer]*tick{},
		waiting: map[*waiter]struct{}{},
		changed: make(chan struct{}),
	}
	r.view = newView(r)
	return r
}

// Closer is a link the router can end: a box holding two links at once (it
// relinked before the hub saw its old link end) keeps only the newer one.
type Closer interface{ Close() error }

// Add takes a link that came up. A box that links again is reached over the
// newer link from now on; the older one is closed and its handles forgotten,
// so the newer link's full directory claims them afresh.
func (r *Router) Add(p Peer) {
	r.mu.Lock()
	old, again := r.links[p.Box()]
	again = again && old != p
	r.links[p.Box()] = p
	r.slots[p] = semaphore.NewWeighted(int64(r.cfg.MaxOffers))
	if p.Ticks() {
		r.ticks[p] = &tick{}
	}
	r.heldAnew()
	if again {
		r.drop(old)
	}
	r.mu.Unlock()
	if c, ok := old.(Closer); again && ok {
		r.log.Info("a box linked again; its older link is closed and the newer one used", "box", p.Box())
		c.Close()
	}
}

// Remove forgets a link that ended, every handle it held and what it published
// of them.
func (r *Router) Remove(p Peer) {
	r.mu.Lock()
	if r.links[p.Box()] == p {
		delete(r.links, p.Box())
	}
	r.drop(p)
	r.heldAnew()
	r.mu.Unlock()
	r.view.drop(p) // the view takes r.mu under its own lock: not under r.mu
}

func (r *Router) drop(p Peer) {
	r.keep(p)
	r.forget(p)
	delete(r.quiet, p)
	delete(r.slots, p)
	delete(r.ticks, p)
	r.heard(p, false, true)
}

// Directory applies a link's directory event: a full set replaces what that
// link held before, a change adds and removes handles. Events of a link that has
// ended are dropped, so a late one cannot outlive its Remove. An event past
// MaxChange handles is refused whole. A claim is refused (see claimable) when
// another live link holds the handle, the hub's own folder lists it, its link
// ended less than KeptFor ago and another box claims it, it is a derived
// handle naming another box of hosts.toml, or it is past the link's
// MaxHandles. Each refusal is logged, naming both boxes where there are two,
// and returned; the refused claims as a *Refused, which the hub tells the box.
func (r *Router) Directory(p Peer, d wire.LinkDirectory) error {
	if n := len(d.Added) + len(d.Removed); n > MaxChange {
		r.Warn(p, "a box's directory event was refused: too many handles in one event", "handles", n, "max", MaxChange)
		return fmt.Errorf("a directory event of %d handles is over the %d-handle limit; it was refused whole", n, MaxChange)
	}
	var own map[string]bool
	var boxes []derivedSuffix
	if len(d.Added) > 0 {
		// They read the registry and hosts.toml: not under the lock.
		if r.cfg.Own != nil {
			own = r.cfg.Own()
		}
		if r.cfg.Boxes != nil {
			boxes = r.derived.of(r.cfg.Boxes())
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-p.Done():
		return nil
	default:
	}
	if tk := r.ticks[p]; tk != nil {
		tk.full = tk.full || d.Full
		tk.last = r.cfg.Now()
	}
	defer r.heard(p, len(d.Added) > 0, false)
	if !d.Full && len(d.Added)+len(d.Removed) == 0 {
		return nil // a tick: nothing changed, so the negative cache stands
	}
	close(r.changed) // under r.mu, so Holds sees the change it wakes for
	r.changed = make(chan struct{})
	if d.Full {
		r.forget(p)
	}
	r.heldAnew()
	set := r.held[p]
	if set == nil {
		set = map[string]struct{}{}
		r.held[p] = set
	}
	for _, h := range d.Removed {
		if _, ok := set[h]; ok {
			delete(set, h)
			delete(r.holders, h)
		}
	}
	refused := &Refused{Box: p.Box()}
	for _, h := range d.Added {
		if _, ok := set[h]; ok || home.CheckHandle(h) != nil {
			continue // held already, or no line could be routed to it anyway
		}
		if c := r.claimable(p, h, own, boxes); c != nil {
			refused.Claims = append(refused.Claims, *c)
			continue
		}
		if len(set) >= r.cfg.MaxHandles {
			refused.Claims = append(refused.Claims, wire.RefusedClaim{Handle: h, Why: fmt.Sprintf("this box already holds the %d handles a link may hold", r.cfg.MaxHandles)})
			continue
		}
		delete(r.kept, h)
		set[h] = struct{}{}
		r.holders[h] = p
	}
	if len(refused.Claims) == 0 {
		return nil
	}
	first := refused.Claims[0]
	r.warn(p, "a box's claims on handles were refused", "refused", len(refused.Claims), "first", first.Handle, "holder", first.Holder, "why", first.Why)
	if r.refusedAgain(p) {
		r.log.Warn("a box kept claiming handles the hub refuses; its link is closed", "box", p.Box(), "events", MaxRefusedEvents, "within", RefusedWindow)
		if c, ok := p.(Closer); ok {
			go c.Close() // not here: this event is read by the link's own reader, which Close waits for
		}
	}
	return refused
}

// claimable is why p may not claim handle h, nil when it may. own is the
// hub's own folder's handles, boxes every box of hosts.toml with its derived
// handles' suffix. Under r.mu.
func (r *Router) claimable(p Peer, h string, own map[string]bool, boxes []derivedSuffix) *wire.RefusedClaim {
	switch q := r.holders[h]; {
	case own[h]:
		return &wire.RefusedClaim{Handle: h, Why: "the hub's own folder lists it under the hub"}
	case q != nil && r.live(q):
		return &wire.RefusedClaim{Handle: h, Holder: q.Box(), Why: "another box holds it; a handle has one holder"}
	}
	if k, ok := r.kept[h]; ok && k.box != p.Box() {
		if r.cfg.Now().Before(k.until) {
			return &wire.RefusedClaim{Handle: h, Holder: k.box, Why: fmt.Sprintf("its holder's link ended less than %s ago; it stays that box's until then", r.cfg.KeptFor)}
		}
		delete(r.kept, h)
	}
	if b := derivedFor(h, p.Box(), boxes); b != "" {
		return &wire.RefusedClaim{Handle: h, Holder: b, Why: "it is a handle derived for a session on another box of hosts.toml (<folder>-<box>)"}
	}
	return nil
}

// derivedFor is the box of boxes other than claimant whose derived handles
// (<folder>-<box>, registry.HostPart) h is one of; "" when none, or when h
// is one of claimant's own.
func derivedFor(h, claimant string, boxes []derivedSuffix) string {
	if strings.HasSuffix(h, "-"+registry.HostPart(claimant)) {
		return ""
	}
	for _, b := range boxes {
		if b.box != claimant && strings.HasSuffix(h, b.suffix) {
			return b.box
		}
	}
	return ""
}

// derivedSuffix is a box of hosts.toml and the suffix of the handles derived
// for it: "-" and its HostPart.
type derivedSuffix struct{ box, suffix string }

// derivedMemo keeps the derived suffixes of the boxes hosts.toml last named:
// every handle a directory event adds is checked against every box, and
// HostPart sanitizes (and may hash) each, which at 1,000 boxes made a
// directory update cost twice what it costs at 10.
type derivedMemo struct {
	mu    sync.Mutex
	boxes []string
	sfx   []derivedSuffix
}

// of is boxes with their suffixes, made again only when boxes changed.
func (m *derivedMemo) of(boxes []string) []derivedSuffix {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sfx == nil || !slices.Equal(boxes, m.boxes) {
		m.boxes = slices.Clone(boxes)
		m.sfx = make([]derivedSuffix, len(boxes))
		for i, b := range boxes {
			m.sfx[i] = derivedSuffix{box: b, suffix: "-" + registry.HostPart(b)}
		}
	}
	return m.sfx
}

// kept is a handle whose holder's link ended: its box, and until when only it
// may claim the handle.
type kept struct {
	box   string
	until time.Time
}

// keep notes the handles p holds as its box's for KeptFor, as its link ends,
// and forgets those kept past it. Under r.mu.
func (r *Router) keep(p Peer) {
	now := r.cfg.Now()
	for h, k := range r.kept {
		if !now.Before(k.until) {
			delete(r.kept, h)
		}
	}
	for h := range r.held[p] {
		if r.holders[h] == p {
			r.kept[h] = kept{box: p.Box(), until: now.Add(r.cfg.KeptFor)}
		}
	}
}

// Refused is the claims of one directory event the router refused, each with
// the box that holds the handle where one does, and why.
type Refused struct {
	Box    string
	Claims []wire.RefusedClaim
}

func (e *Refused) Error() string {
	first := e.Claims[0]
	s := fmt.Sprintf("%d of %s's claims were refused (first: @%s: %s", len(e.Claims), e.Box, first.Handle, first.Why)
	if first.Holder != "" {
		s += "; held by " + first.Holder
	}
	return s + ")"
}

// live says whether p is its box's current link and has not ended.
func (r *Router) live(p Peer) bool {
	select {
	case <-p.Done():
		return false
	default:
		return r.links[p.Box()] == p
	}
}

func (r *Router) forget(p Peer) {
	for h := range r.held[p] {
		if r.holders[h] == p {
			delete(r.holders, h)
		}
	}
	delete(r.held, p)
}

// Holds says whether link p holds handle, waiting up to wait for a directory
// event that makes it so: a box's directory update and a request made right
// after a join travel on different streams, so the request may come first.
//
// p may wait for MaxParked handles at once: past that, a handle its directory
// does not name now is not held, so a box that sends request after request
// for handles it does not hold cannot park a goroutine for each.
func (r *Router) Holds(ctx context.Context, p Peer, handle string, wait time.Duration) bool {
	if r.names(p, handle) {
		return true
	}
	if !r.park(p, handle) {
		r.Warn(p, "a box has requests waiting for the most handles it may; one was answered at once", "handle", handle, "max", MaxParked)
		return false
	}
	defer r.unpark(p, handle)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		r.mu.Lock()
		_, ok := r.held[p][handle]
		changed := r.changed
		r.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-changed:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		case <-p.Done():
			return false
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

// holder is the one live link the directory says holds handle; nil when none
// does.
func (r *Router) holder(handle string) Peer {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.holders[handle]; p != nil && r.live(p) {
		return p
	}
	return nil
}

// slotsOf is p's share of offer slots; nil once p is no longer linked.
func (r *Router) slotsOf(p Peer) *semaphore.Weighted {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.slots[p]
}

// UnheldFor is how long the hub answers not_here at once for a handle every
// linked box answered not_here, when no link came up or ended and no directory
// changed meanwhile: a burst of mail to a handle no box holds costs one offer to
// every box, and one read of hosts.toml for the boxes that are not linked, not
// one each. A guest's directory tells a handle it took within its registry poll
// (1.5 s), and that event ends the wait at once.
const UnheldFor = 2 * time.Second

// maxUnheld bounds the negative cache; past it, it starts afresh.
const maxUnheld = 4096

// unheld is one handle no linked box holds: since when, and the boxes that
// should have been linked and were not then (NotLinked), which its not_here
// names.
type unheld struct {
	at        time.Time
	notLinked []string
}

// heldAnew empties the negative cache: a link came up or ended, or a directory
// changed. Under r.mu.
func (r *Router) heldAnew() {
	r.gen++
	if len(r.unheld) > 0 {
		r.unheld = map[string]unheld{}
	}
}

// knownUnheld says whether every linked box answered not_here for handle
// within UnheldFor, with nothing since that could change it, and which boxes
// were not linked then; and the generation to pass unheldSince after a new
// round of offers.
func (r *Router) knownUnheld(handle string) (notLinked []string, ok bool, gen uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	u, ok := r.unheld[handle]
	if !ok || r.cfg.Now().Sub(u.at) >= UnheldFor {
		return nil, false, r.gen
	}
	return u.notLinked, true, r.gen
}

// unheldSince notes that every linked box answered not_here for handle, when
// no link came up or ended and no directory changed since gen.
func (r *Router) unheldSince(handle string, gen uint64, notLinked []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gen != gen {
		return
	}
	if len(r.unheld) >= maxUnheld {
		r.unheld = map[string]unheld{}
	}
	r.unheld[handle] = unheld{at: r.cfg.Now(), notLinked: notLinked}
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
