package page

import (
	"context"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/web"
	"github.com/sotcomm/sotd/wire"
)

// Serve serves the status page, /v1/ws and /metrics until ctx ends; web
// writes the address and token files `sotd url` reads.
func (v *Page) Serve(ctx context.Context) error {
	s, err := web.New(web.Config{Home: v.cfg.Home, Host: v.host, Addr: v.cfg.Addr, Backend: v, Log: v.cfg.Log})
	if err != nil {
		return err
	}
	if err := s.Listen(); err != nil {
		return err
	}
	v.cfg.Log.Info("status page serving", "addr", s.Addr())
	return s.Serve(ctx)
}

// Kick asks the watch to look now (a row started or was removed); one
// pending kick covers every change before the look.
func (v *Page) Kick() {
	select {
	case v.kick <- struct{}{}:
	default:
	}
}

// Watch looks at the rows, the registry and the agents' inboxes every
// WatchEvery, or at once when kicked, and publishes what moved. The registry
// is read again only when its file moved; liveness ages with the clock, so it
// is judged every look.
func (v *Page) Watch(ctx context.Context, f *filer.Filer) error {
	t := time.NewTicker(WatchEvery)
	defer t.Stop()
	var seen home.Stamp
	counted := map[string]mailCount{}
	for {
		v.lookRows()
		seen = v.lookRegistry(seen)
		v.lookNetwork()
		v.lookMail(f, counted)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-v.kick:
		}
	}
}

func (v *Page) lookRows() {
	wl, err := v.cfg.Src.Rows()
	if err != nil {
		v.cfg.Log.Debug("the page's rows were not updated", "err", err)
		return
	}
	rs := make([]wire.ViewRow, 0, len(wl.Workspaces))
	for _, w := range wl.Workspaces {
		rs = append(rs, wire.ViewRow{ID: w.ID, Box: v.host, Label: w.Label, Phase: w.Phase, Agent: w.Agent, Handle: w.AgentHandle, ExitCode: w.ExitCode, Since: w.Started})
	}
	v.setRows(rs)
}

// lookRegistry reads the registry if it moved since seen, publishes the agents
// that changed, and returns the stamp it read.
func (v *Page) lookRegistry(seen home.Stamp) home.Stamp {
	now := home.StampOf(v.cfg.Home.Registry())
	if now.Absent() || now.Same(seen) {
		v.setAgents(nil)
		return seen
	}
	doc, err := v.cfg.Registry()
	if err != nil {
		v.cfg.Log.Debug("the page's agents were not updated", "err", err)
		v.setAgents(nil)
		return seen
	}
	v.setAgents(doc)
	return now
}
