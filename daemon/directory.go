package daemon

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/link"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// directoryEvery is how often a guest looks for handles joined or gone, the
// daemon's registry change poll.
const directoryEvery = 1500 * time.Millisecond

// directory tells the hub which handles this box holds: those its registry
// lists with this box as host. The full set goes on every new link, then what
// changed. It only saves the hub offers: a handle the hub has not heard of yet
// is offered to every box, and a holder that says not_here is too.
type directory struct {
	home  home.Home
	box   string
	log   *slog.Logger
	every time.Duration

	mu   sync.Mutex
	conn *link.Conn
	told map[string]bool // what conn was told; nil: not even the full set yet
}

// up sends a new link the full set (link.Keeper's Up).
func (d *directory) up(c *link.Conn) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.conn, d.told = c, nil
	d.syncLocked()
}

// run sends what changed, every d.every, until ctx ends.
func (d *directory) run(ctx context.Context) error {
	return everyTick(ctx, d.every, func() {
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
	held, err := d.held()
	if err != nil {
		d.log.Debug("the directory was not sent: the registry could not be read", "err", err)
		return
	}
	ev := diff(d.told, held)
	if !ev.Full && len(ev.Added) == 0 && len(ev.Removed) == 0 {
		return
	}
	if err := d.conn.SendEvent(wire.OpLinkDirectory, ev); err != nil {
		d.log.Debug("the directory was not sent", "err", err)
		return
	}
	d.told = held
}

// heldOrNone is held, or none when the registry cannot be read.
func (d *directory) heldOrNone() map[string]bool {
	held, _ := d.held()
	return held
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

// held is the set of handles this box's registry lists under this box.
func (d *directory) held() (map[string]bool, error) {
	doc, err := registry.Read(d.home)
	if err != nil {
		return nil, err
	}
	held := map[string]bool{}
	for name, e := range doc.Agents {
		if e.Host == d.box {
			held[name] = true
		}
	}
	return held, nil
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
