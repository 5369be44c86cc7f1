package daemon

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/page"
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/web"
	"github.com/sotcomm/sotd/wire"
)

// HTTPOff as Config.HTTP runs no status page.
const HTTPOff = "off"

// startPage runs the status page and the watch that feeds it under sup.
func (d *Daemon) startPage(ctx context.Context, sup *supervisor, f *filer.Filer) {
	sup.start(ctx, service{name: "status page watch", run: func(ctx context.Context) error { return d.view.Watch(ctx, f) }})
	sup.start(ctx, service{name: "page conversations", run: func(ctx context.Context) error { return d.view.Conversations(ctx, f) }})
	if d.cfg.HTTP != HTTPOff {
		sup.start(ctx, service{name: "status page", run: d.view.Serve})
	}
}

// pageSource is the daemon as the status page reads it.
type pageSource struct{ d *Daemon }

func (s pageSource) Rows() (wire.WorkspaceList, error) { return s.d.rows.List() }
func (s pageSource) Registry() (any, error)            { return s.d.registryList() }
func (s pageSource) Screen(id string) (any, error)     { return s.d.rows.Screen(id) }

func (s pageSource) Send(ctx context.Context, req wire.CommFile) (any, error) {
	return s.d.commFile(ctx, s.d.pageBatch, req, s.d.routeRegistry())
}

// Network takes the other boxes' entries and rows and the list of boxes from
// the network view.
func (s pageSource) Network() (page.Network, bool) {
	d := s.d
	n := d.net
	if n == nil {
		return page.Network{}, false
	}
	out := page.Network{Remote: map[string]wire.ViewEntry{}, Rows: map[string]wire.ViewRow{}, Boxes: web.Boxes{Known: true, List: []web.BoxState{}}}
	var list []wire.ViewBox
	switch {
	case n.router != nil:
		out.Remote = n.router.View().Entries(nil, false)
		out.Rows = n.router.View().Rows(nil, false)
		list = n.viewBoxes()
	case len(n.hubs) > 0:
		h := n.viewHub()
		h.copy.mu.Lock()
		out.Boxes.Known, out.Boxes.Why = h.copy.known, h.copy.why
		if out.Boxes.Known {
			out.Remote = maps.Clone(h.copy.entries)
			out.Rows = maps.Clone(h.copy.rows)
			list = slices.Clone(h.copy.boxes)
		} else if !h.copy.asOf.IsZero() {
			out.Boxes.AsOf = h.copy.asOf.UTC().Format(time.RFC3339)
		}
		h.copy.mu.Unlock()
		if !out.Boxes.Known {
			list = []wire.ViewBox{{Box: d.cfg.Host, Up: true}, {Box: h.name, Up: false, Reason: out.Boxes.Why}}
		}
		for _, h := range n.hubs {
			if h.keeper.Current() != nil {
				continue
			}
			// A dial that failed made no link for the book to record: the
			// keeper's last error is why the link is down.
			why := "not linked yet"
			if err := h.keeper.LastError(); err != nil {
				why = err.Error()
			}
			if out.Down == nil {
				out.Down = map[string]string{}
			}
			out.Down[h.name] = why
		}
	default:
		list = []wire.ViewBox{{Box: d.cfg.Host, Up: true}}
	}
	for _, b := range list {
		out.Boxes.List = append(out.Boxes.List, web.BoxState(b))
	}
	return out, true
}
