package workspace

import (
	"context"
	"errors"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/regcache"
	"github.com/sotcomm/sotd/internal/ctxsleep"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/wake"
)

// DialogEvery is how often the daemon reads the screen of each Claude row whose
// turn runs, looking for a dialog that waits on a person.
const DialogEvery = 5 * time.Second

// dialogWatch writes a Claude row's dialog and resumed events, which Claude Code
// never sends itself: dialog "T" when the row's screen shows a dialog (the
// work-state reads blocked over the running turn), resumed once it is gone. A
// row is read while its turn runs (floor set) or while a dialog is recorded, so
// an idle row costs no screen read. Not on Windows, as the protocol says: its
// agents draw their dialogs differently.
type dialogWatch struct {
	m     *Manager
	every time.Duration
}

func (w dialogWatch) run(ctx context.Context) error {
	return ctxsleep.Every(ctx, w.every, func() {
		if err := w.pass(); err != nil {
			w.m.log.Debug("the dialog watch skipped a pass", "err", err)
		}
	})
}

// pass reads each watched row's screen once and writes what changed. The
// registry is read first: while no row's turn runs nor shows a dialog, the
// rows are not even listed (a tmux listing is a process of its own).
func (w dialogWatch) pass() error {
	v, err := w.m.reg.view()
	if err != nil {
		return err
	}
	if !w.anyWatched(v) {
		return nil
	}
	infos, err := w.m.b.List()
	if err != nil {
		return err
	}
	type row struct {
		id, handle string
		e          *registry.Entry
	}
	var rs []row
	var ids []string
	for _, ri := range infos {
		if ri.Spec.Agent != rows.Claude || ri.Phase != rows.Ready {
			continue
		}
		if h, e := w.m.handleOf(v, ri.Spec); e != nil && watched(e) {
			rs = append(rs, row{ri.Spec.ID, h, e})
			ids = append(ids, ri.Spec.ID)
		}
	}
	screens, err := w.m.b.Texts(ids)
	if err != nil {
		return err
	}
	var errs []error
	for _, r := range rs {
		s, ok := screens[r.id]
		if !ok {
			continue // ended since the listing
		}
		st := registry.Status{Verb: registry.VerbResumed}
		title, shown := wake.Dialog(s, false)
		switch {
		case shown && title != r.e.Dialog:
			st = registry.Status{Verb: registry.VerbDialog, Text: title, HasText: true}
		case shown || r.e.Dialog == "":
			continue
		}
		if err := registry.WriteStatus(w.m.home, r.handle, st, w.m.now(), registry.Ruled()); err != nil {
			errs = append(errs, err)
			continue
		}
		w.m.log.Info("a Claude row's dialog", "row", r.id, "handle", r.handle, "event", st.Verb, "dialog", st.Text)
		w.m.signal()
	}
	return errors.Join(errs...)
}

// watched reports whether e's screen is read: its turn runs, or a dialog is
// recorded that may be gone.
func watched(e *registry.Entry) bool { return e.Floor != "" || e.Dialog != "" }

// anyWatched reports whether any handle bound to a row on this box is watched.
func (w dialogWatch) anyWatched(v *regcache.View) bool {
	for _, h := range v.Held(w.m.host) {
		if watched(v.Doc.Agents[h]) {
			return true
		}
	}
	return false
}
