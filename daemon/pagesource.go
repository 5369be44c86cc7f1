package daemon

import (
	"context"

	"github.com/sotcomm/sotd/daemon/internal/page"
	"github.com/sotcomm/sotd/filer"
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
	return s.d.net.File(ctx, req)
}

// Network takes the other boxes' entries and rows and the list of boxes from
// the network view.
func (s pageSource) Network() (page.Network, bool) {
	if s.d.net == nil {
		return page.Network{}, false
	}
	return s.d.net.Page(), true
}
