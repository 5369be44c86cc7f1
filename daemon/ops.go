package daemon

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/network"
	"github.com/sotcomm/sotd/daemon/internal/refuse"
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/metrics"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// fileBatch files a batch of lines for one receiver. What depends on the
// receiver and the box, its registry entry and the lock manager's record, is
// checked once for the whole batch, just before the append: the registry is looked
// at once per batch, as fresh as it can be, like the fsync, and parsed again only
// when it changed (regcache). ownOnly files only for a
// handle listed under this box (an offer from the hub); any other is not_here.
func (d *Daemon) fileBatch(mgr lockManager, f *filer.Filer, handle string, lines []filer.Line, ownOnly bool) (res []filer.Result, err error) {
	defer countRefused(&err)
	doc, err := d.reg.Read()
	if err != nil {
		return nil, refuse.Unreadable(wire.CodeFileFailed, "nothing was filed", err)
	}
	if e, ok := doc.Agents[handle]; ownOnly && (!ok || e.Host != d.cfg.Host) {
		return nil, wire.NoBoxKnows(handle, nil)
	}
	if err := mail.CheckReceiver(doc, handle, d.cfg.Now()); err != nil {
		return nil, err
	}
	if err := mgr.check(); err != nil {
		return nil, err
	}
	res, err = f.Append(handle, lines)
	if err != nil {
		return res, err
	}
	if d.rowMayAct(doc, handle) {
		d.filedNow()
	}
	return res, nil
}

// filing is the daemon's group commit as its network files through it.
type filing struct{ d *Daemon }

func (e filing) Commit(handle string, lines []filer.Line, offer bool) []network.Filed {
	b := e.d.batch
	if offer {
		b = e.d.offers
	}
	out := make([]network.Filed, len(lines))
	for i, o := range b.fileAll(handle, lines) {
		out[i].Res, out[i].Err = filedAs(handle, o)
	}
	return out
}

func (e filing) OwnLock() bool {
	ok, _ := filer.Matches(e.d.mgr.home, e.d.mgr.own)
	return ok
}

// filedAs is the answer to a line for @to that the batcher filed, or refused.
func filedAs(to string, o outcome) (wire.CommFiled, error) {
	if o.err != nil {
		return wire.CommFiled{}, o.err // the batcher logged it, once for the batch
	}
	return wire.CommFiled{OK: true, To: to, Dup: o.res.Dup}, nil
}

// countRefused feeds the metrics a batch's refusal code; the filer's Observer
// counts the lines it appended.
func countRefused(err *error) {
	if *err != nil {
		metrics.Refused(wire.AsRefusal(*err).Code)
	}
}

// observer moves the daemon's metrics for its filer.
type observer struct{}

func (observer) LockWait(d time.Duration) { metrics.LockWait(d) }
func (observer) Fsync(d time.Duration)    { metrics.Fsync(d) }
func (observer) Filed(lines int)          { metrics.Filed(lines) }

// rowMayAct reports whether doc binds handle to a row on this box, the only
// kind the wake types into (regcache.View.Bound): mail for any other handle
// has no row to wake, so it does not start the wake's pass, which lists the rows
// and reads the registry. A binding made after doc was read is the wake's at its
// next tick, as one made just after that pass would be.
func (d *Daemon) rowMayAct(doc *registry.Doc, handle string) bool {
	e, ok := doc.Agents[handle]
	return ok && e.Host == d.cfg.Host && e.WorkspaceID != ""
}

// filedNow tells the wake loop a line was filed; a pass already due takes it.
func (d *Daemon) filedNow() {
	select {
	case d.filed <- struct{}{}:
	default:
	}
}

// appendedTo kicks the wake for a line appended to handle's inbox by any
// process (a client's own append too), as filing does for the daemon's own;
// "" (appends not known) kicks it. The page's conversations read the inbox
// again (page.InboxMoved).
func (d *Daemon) appendedTo(handle string) {
	d.view.InboxMoved(handle)
	if handle == "" {
		d.filedNow()
		return
	}
	if doc, err := d.reg.Read(); err == nil && d.rowMayAct(doc, handle) {
		d.filedNow()
	}
}

// registryList answers with the registry's agents as they are on disk.
func (d *Daemon) registryList() (any, error) {
	doc, err := d.reg.Read()
	if err != nil {
		return nil, refuse.Unreadable(wire.CodeUnreadable, "nothing can be listed", err)
	}
	b, err := doc.Marshal()
	if err != nil {
		return nil, fmt.Errorf("encode the registry: %w", err)
	}
	var top struct {
		Agents json.RawMessage `json:"agents"`
	}
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("encode the registry: %w", err)
	}
	return wire.RegistryList{Agents: top.Agents}, nil
}
