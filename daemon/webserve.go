package daemon

import (
	"context"
	"os"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/web"
)

// HTTPOff as Config.HTTP runs no status page.
const HTTPOff = "off"

// startWeb runs the status page and the watch that feeds it under a supervisor
// of their own; the returned stop ends both, and is called before the socket
// closes, so no page asks a stopping daemon.
func (d *Daemon) startWeb(f *filer.Filer) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sup := newSupervisor(d.log)
	sup.start(ctx, service{name: "status page watch", run: func(ctx context.Context) error { return d.watch(ctx, f) }})
	if d.cfg.HTTP != HTTPOff {
		sup.start(ctx, service{name: "status page", run: d.runWeb})
	}
	return func() {
		cancel()
		sup.wait()
	}
}

// runWeb serves the status page, /v1/ws and /metrics until ctx ends; web
// writes the address and token files `sotd url` reads.
func (d *Daemon) runWeb(ctx context.Context) error {
	s, err := web.New(web.Config{Home: d.cfg.Home, Host: d.cfg.Host, Addr: d.cfg.HTTP, Backend: d, Log: d.log})
	if err != nil {
		return err
	}
	if err := s.Listen(); err != nil {
		return err
	}
	d.log.Info("status page serving", "addr", s.Addr())
	return s.Serve(ctx)
}

// kickPage asks the watch to look now (a row started or was removed); one
// pending kick covers every change before the look.
func (d *Daemon) kickPage() {
	select {
	case d.pageKick <- struct{}{}:
	default:
	}
}

// watch looks at the rows and the registry every watchEvery, or at once when
// kicked, and publishes what moved. The registry is read again only when its
// mtime or size moved; liveness ages with the clock, so it is judged every look.
func (d *Daemon) watch(ctx context.Context, f *filer.Filer) error {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	var seen fileStamp
	for {
		d.lookRows()
		seen = d.lookRegistry(f, seen)
		for _, h := range d.view.takeRecount() {
			d.countUnread(f, h)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-d.pageKick:
		}
	}
}

func (d *Daemon) lookRows() {
	wl, err := d.rows.list()
	if err != nil {
		d.log.Debug("the page's rows were not updated", "err", err)
		return
	}
	rs := make([]web.Row, 0, len(wl.Workspaces))
	for _, w := range wl.Workspaces {
		rs = append(rs, web.Row{ID: w.ID, Host: d.cfg.Host, Handle: w.AgentHandle, Phase: w.Phase})
	}
	d.view.setRows(rs)
}

// lookRegistry reads the registry if it moved since seen, publishes the agents
// that changed and their unread counts, and returns the stamp it read.
func (d *Daemon) lookRegistry(f *filer.Filer, seen fileStamp) fileStamp {
	st, err := os.Stat(d.cfg.Home.Registry())
	if err != nil {
		d.view.setAgents(nil)
		return seen
	}
	now := fileStamp{mod: st.ModTime(), size: st.Size()}
	if now == seen {
		d.view.setAgents(nil)
		return seen
	}
	doc, err := registry.Read(d.cfg.Home)
	if err != nil {
		d.log.Debug("the page's agents were not updated", "err", err)
		d.view.setAgents(nil)
		return seen
	}
	d.view.setAgents(doc)
	for h := range doc.Agents {
		d.lookUnread(f, h)
	}
	return now
}

// lookUnread counts a handle's unread lines if it has an inbox here; reading
// one that does not exist would leave a lock file behind for a handle that was
// never mailed.
func (d *Daemon) lookUnread(f *filer.Filer, handle string) {
	p, err := d.cfg.Home.HandlePath(home.Inbox, handle)
	if err != nil {
		return
	}
	if _, err := os.Stat(p); err != nil {
		d.view.setUnread(handle, 0)
		return
	}
	d.countUnread(f, handle)
}
