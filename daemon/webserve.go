package daemon

import (
	"context"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/web"
)

// HTTPOff as Config.HTTP runs no status page.
const HTTPOff = "off"

// startWeb runs the status page and the watch that feeds it under sup.
func (d *Daemon) startWeb(ctx context.Context, sup *supervisor, f *filer.Filer) {
	sup.start(ctx, service{name: "status page watch", run: func(ctx context.Context) error { return d.watch(ctx, f) }})
	sup.start(ctx, service{name: "page conversations", run: func(ctx context.Context) error {
		return d.view.convos.run(ctx, f, d.view.boxOf, d.log)
	}})
	if d.cfg.HTTP != HTTPOff {
		sup.start(ctx, service{name: "status page", run: d.runWeb})
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

// watch looks at the rows, the registry and the agents' inboxes every
// watchEvery, or at once when kicked, and publishes what moved. The registry
// is read again only when its file moved; liveness ages with the clock, so it
// is judged every look.
func (d *Daemon) watch(ctx context.Context, f *filer.Filer) error {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	var seen home.Stamp
	counted := map[string]mailCount{}
	for {
		d.lookRows()
		seen = d.lookRegistry(seen)
		d.lookNetwork()
		d.lookMail(f, counted)
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
		r := web.Row{ID: w.ID, Host: d.cfg.Host, Label: w.Label, Agent: w.Agent, Handle: w.AgentHandle, Phase: w.Phase, ExitCode: w.ExitCode}
		if t, err := time.Parse(time.RFC3339, w.Started); err == nil {
			r.Since = t
		}
		rs = append(rs, r)
	}
	d.view.setRows(rs)
}

// lookRegistry reads the registry if it moved since seen, publishes the agents
// that changed, and returns the stamp it read.
func (d *Daemon) lookRegistry(seen home.Stamp) home.Stamp {
	now := home.StampOf(d.cfg.Home.Registry())
	if now.Absent() || now.Same(seen) {
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
	return now
}
