package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/refuse"
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/metrics"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// commFile files one line by route 1's rules, the same ones a client's own
// append applies (package mail), group-committed with the other lines waiting for
// its inbox. The answer comes when the line is durable; a line whose id the inbox
// already holds is answered ok, dup. ctx is the caller's, a connection's or a
// link's: it bounds what routing sends on, and ends when the caller gives up.
// reg is the registry as read after the request arrived (routeRegistry).
func (d *Daemon) commFile(ctx context.Context, b *batcher, req wire.CommFile, reg registryLook) (wire.CommFiled, error) {
	if err := mail.CheckRequest(req); err != nil {
		return wire.CommFiled{}, d.refused(req, err)
	}
	return d.route(ctx, b, req, reg)
}

// lineOf is the line req files, or its refusal, logged.
func (d *Daemon) lineOf(req wire.CommFile) (filer.Line, error) {
	if err := mail.CheckRequest(req); err != nil {
		return filer.Line{}, d.refused(req, err)
	}
	line := mail.Compose(req, d.cfg.Now())
	// One line that cannot be encoded would fail its whole batch, so it is
	// refused here, alone; the batch's append encodes it.
	if err := line.Check(); err != nil {
		return filer.Line{}, d.refused(req, wire.Refuse(wire.CodeBadRequest, "the line for @%s cannot be filed: %v; nothing was appended", req.To, err))
	}
	return line, nil
}

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
// kind the wake types into (rowsManager.handlesOf): mail for any other handle
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

// refused logs a request refused before it was queued: the sender's mistake.
func (d *Daemon) refused(req wire.CommFile, err error) error {
	d.log.Info("comm.file refused", "from", req.From, "to", req.To, "err", err)
	metrics.Refused(wire.AsRefusal(err).Code)
	return err
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
