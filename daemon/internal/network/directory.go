package network

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/regcache"
	"github.com/sotcomm/sotd/internal/ctxsleep"
	"github.com/sotcomm/sotd/link"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// directoryEvery is how often a guest looks for handles joined or gone, the
// daemon's registry change poll.
const directoryEvery = 1500 * time.Millisecond

// tickWait is how long the hub waits for a ticking guest's next directory
// event before it offers that guest a line for a handle no directory names
// (hub.Config.TickWait): two polls, and a margin for a poll that ran late.
const tickWait = 2*directoryEvery + 500*time.Millisecond

// directory tells the hub which handles this box holds: those its registry
// lists with this box as host. The full set goes on every new link, then what
// changed. On a link that agreed to Ticks (link.Conn.Ticks) an event goes on
// every poll, an empty one when nothing changed, so the hub knows this box's
// directory is complete as of its last event: a line for a handle no
// directory names waits for this box's next event rather than be offered to
// it. Without Ticks it only saves the hub offers: a handle the hub has not
// heard of is offered to every such box.
//
// With the handles goes this box's part of the network view (netview.go): each
// held handle's entry as `sotd list` shows it, its liveness judged here, sent
// after the directory event that names its handle (one control stream keeps
// them in order, so the hub already knows the holder), and this box's rows as
// its page last looked at them; at most one view event each viewGap and only
// what changed.
type directory struct {
	reg   *regcache.Cache // the daemon's
	box   string
	log   *slog.Logger
	every time.Duration
	now   func() time.Time
	rows  func() map[string]wire.ViewRow // this box's rows, by Key

	mu   sync.Mutex
	conn *link.Conn
	told map[string]bool // what conn was told; nil: not even the full set yet
	view viewTold        // what conn was told of the view
}

// up sends a new link the full set (link.Keeper's Up).
func (d *directory) up(c *link.Conn) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.conn, d.told, d.view = c, nil, viewTold{}
	d.syncLocked()
}

// run sends what changed, every d.every, until ctx ends.
func (d *directory) run(ctx context.Context) error {
	return ctxsleep.Every(ctx, d.every, func() {
		d.mu.Lock()
		d.syncLocked()
		d.mu.Unlock()
	})
}

func (d *directory) syncLocked() {
	if d.conn == nil {
		return
	}
	select {
	case <-d.conn.Done():
		d.conn, d.told = nil, nil
		return
	default:
	}
	doc, err := d.reg.Read()
	if err != nil {
		d.log.Debug("the directory was not sent: the registry could not be read", "err", err)
		return
	}
	held := d.heldIn(doc)
	if ev := diff(d.told, held); ev.Full || len(ev.Added) > 0 || len(ev.Removed) > 0 || d.conn.Ticks() {
		if err := d.conn.SendEvent(wire.OpLinkDirectory, ev); err != nil {
			d.log.Debug("the directory was not sent", "err", err)
			return
		}
		d.told = held
	}
	d.syncViewLocked(doc)
}

// syncViewLocked sends the hub what changed in this box's part of the view.
func (d *directory) syncViewLocked(doc *registry.Doc) {
	now := d.now()
	own := viewEntries(doc, d.box, registry.LiveAt(now), func(_ string, e *registry.Entry) bool { return e.Host == d.box })
	ev, ok := d.view.next(own, d.rows(), nil, now)
	if !ok {
		return
	}
	if _, err := sendView(d.conn, ev); err != nil {
		d.log.Debug("the view was not sent", "err", err)
		return
	}
	d.view.told(ev, now)
}

// tell sends what changed now if the hub has not been told of handle yet: a
// request on handle's behalf made right after its join must not reach the hub
// before the directory update that names it.
func (d *directory) tell(handle string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.told[handle] {
		d.syncLocked()
	}
}

// heldOrNone is the set of handles this box's registry lists under this box,
// none when the registry cannot be read.
func (d *directory) heldOrNone() map[string]bool {
	doc, err := d.reg.Read()
	if err != nil {
		return nil
	}
	return d.heldIn(doc)
}

func (d *directory) heldIn(doc *registry.Doc) map[string]bool {
	held := map[string]bool{}
	for name, e := range doc.Agents {
		if e.Host == d.box {
			held[name] = true
		}
	}
	return held
}

// diff is the event that takes a hub told told to now: the full set when told
// is nil.
func diff(told, now map[string]bool) wire.LinkDirectory {
	var ev wire.LinkDirectory
	if told == nil {
		ev.Full = true
	}
	for h := range now {
		if !told[h] {
			ev.Added = append(ev.Added, h)
		}
	}
	for h := range told {
		if !now[h] {
			ev.Removed = append(ev.Removed, h)
		}
	}
	slices.Sort(ev.Added)
	slices.Sort(ev.Removed)
	return ev
}
