package daemon

import (
	"context"

	"github.com/sotcomm/sotd/daemon/internal/workspace"
	"github.com/sotcomm/sotd/filer"
)

// startRows runs the rows' services under sup: the liveness stamper, the
// dialog watch every dialogEvery, and the wake over the rows, reading inboxes
// through f and kicked by d.filed.
func (d *Daemon) startRows(ctx context.Context, sup *supervisor, f *filer.Filer) {
	sup.start(ctx, service{name: "row liveness", run: d.rows.Stamp})
	if workspace.Dialogs {
		sup.start(ctx, service{name: "dialog watch", run: func(ctx context.Context) error { return d.rows.WatchDialogs(ctx, d.dialogEvery) }})
	}
	sup.start(ctx, service{name: "wake", run: d.rows.WakeLoop(f, d.filed).Run})
}
