package workspace

import (
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/screen"
	"github.com/sotcomm/sotd/wake"
)

// WakeRows is the daemon's rows as the wake loop sees them. Its Input takes the
// row's lock, the one pty.input takes, so a notice never interleaves with
// another caller's keys.
type WakeRows struct{ m *Manager }

var _ wake.Rows = WakeRows{}

// List is every row with the handle the registry binds to it. A row whose
// handle the registry does not show (unreadable, or moved to a newer row) has
// none, so nothing is typed into it for that handle's mail.
func (w WakeRows) List() []wake.Row {
	infos, err := w.m.b.List()
	if err != nil {
		w.m.log.Debug("the wake sees no rows this tick", "err", err)
		return nil
	}
	v, err := w.m.reg.view()
	if err != nil {
		w.m.log.Debug("the wake sees no row's handle this tick", "err", err)
		v = nil
	}
	out := make([]wake.Row, 0, len(infos))
	for _, ri := range infos {
		h, _ := w.m.handleOf(v, ri.Spec)
		out = append(out, wake.Row{ID: ri.Spec.ID, Handle: h, Agent: ri.Spec.Agent, Ready: ri.Phase == rows.Ready})
	}
	return out
}

// Screen is what the row shows now.
func (w WakeRows) Screen(id string) (*screen.Screen, error) { return w.m.b.Screen(id) }

// Input types data into the row under its lock.
func (w WakeRows) Input(id string, data []byte) error { return w.m.typeInto(id, data, false) }
