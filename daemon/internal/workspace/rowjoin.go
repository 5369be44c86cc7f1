package workspace

import (
	"errors"
	"path/filepath"

	"github.com/sotcomm/sotd/daemon/internal/refuse"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/wire"
)

// Join is agent.join. With a row id it gives the handle to that row, one of this
// daemon's that has not ended: a newer declaration moves the handle, and the row
// that lost it learns so from its next comm command, which reads the binding.
// With an empty row id it asks for clearance and writes nothing.
func (m *Manager) Join(req wire.AgentJoin) (wire.AgentJoined, error) {
	if err := home.CheckHandle(req.Handle); err != nil {
		return wire.AgentJoined{}, wire.Refuse(wire.CodeBadHandle, "%v", err)
	}
	if req.WorkspaceID == "" {
		return m.clearance(req.Handle)
	}
	ri, err := m.b.Info(req.WorkspaceID)
	if err != nil {
		return wire.AgentJoined{}, rowRefusal("@"+req.Handle+" was not joined", err)
	}
	if ri.Phase.Ended() {
		return wire.AgentJoined{}, wire.Refuse(rows.Code(rows.ErrNoRow), "@%s was not joined: row %s was removed", req.Handle, req.WorkspaceID)
	}
	moved, _, err := m.bind(req.Handle, req.WorkspaceID, ri.Spec.Cwd)
	if err != nil {
		return wire.AgentJoined{}, err
	}
	m.signal()
	return wire.AgentJoined{Answer: wire.JoinAccepted, Row: req.WorkspaceID, MovedFrom: moved}, nil
}

// bind writes handle's registry entry bound to row, made fresh and live when
// there is none; moved is the row that held it before, "" for none. undo puts
// the entry back as it was while the binding still stands, for a row whose
// agent never started.
func (m *Manager) bind(handle, row, cwd string) (moved string, undo func() error, err error) {
	now := m.now()
	var prev *registry.Entry
	err = registry.Update(m.home, registry.Ruled(), func(d *registry.Doc) error {
		moved, prev = "", nil
		e := d.Agents[handle]
		if e == nil {
			e = &registry.Entry{Status: "idle", Joined: registry.Stamp(now)}
			d.Agents[handle] = e
		} else {
			prev = e.Clone()
		}
		if e.WorkspaceID != "" && e.WorkspaceID != row {
			moved = e.WorkspaceID
		}
		if e.Root == "" && cwd != "" {
			e.Root, e.Repo = cwd, filepath.Base(cwd)
		}
		e.Host, e.WorkspaceID = m.host, row
		return registry.ApplyStatus(e, registry.VerbJoin, "", now)
	})
	if err != nil {
		return "", nil, wire.Refuse(wire.CodeFileFailed, "@%s was not bound to row %s: %v", handle, row, err)
	}
	if moved != "" {
		m.log.Info("handle moved to a newer row", "handle", handle, "row", row, "from", moved)
	}
	undo = func() error {
		return registry.Update(m.home, registry.Ruled(), func(d *registry.Doc) error {
			if e := d.Agents[handle]; e == nil || e.Host != m.host || e.WorkspaceID != row {
				return nil // a later join moved it: that binding stands
			}
			if prev == nil {
				delete(d.Agents, handle)
			} else {
				d.Agents[handle] = prev
			}
			return nil
		})
	}
	return moved, undo, nil
}

// clearance answers held_by_row while a row that has not ended holds handle:
// the row the registry binds it to, or, with no binding, a row started for it.
// An entry bound to a row on another box is held, since no daemon here can
// rule on that row.
func (m *Manager) clearance(handle string) (wire.AgentJoined, error) {
	doc, err := m.reg.read()
	if err != nil {
		return wire.AgentJoined{}, refuse.Unreadable(wire.CodeUnreadable, "no clearance was given", err)
	}
	held := func(row string) (wire.AgentJoined, error) {
		return wire.AgentJoined{Answer: wire.JoinHeld, Row: row}, nil
	}
	if e := doc.Agents[handle]; e != nil && e.WorkspaceID != "" {
		if e.Host != m.host {
			return held(e.WorkspaceID)
		}
		ri, err := m.b.Info(e.WorkspaceID)
		switch {
		case errors.Is(err, rows.ErrNoRow):
		case err != nil:
			// A row this daemon cannot read may still run: it holds.
			return held(e.WorkspaceID)
		case !ri.Phase.Ended():
			return held(e.WorkspaceID)
		}
		return wire.AgentJoined{Answer: wire.JoinOK}, nil
	}
	infos, err := m.b.List()
	if err != nil {
		return wire.AgentJoined{}, rowRefusal("no clearance was given", err)
	}
	for _, ri := range infos {
		if ri.Spec.Handle == handle && !ri.Phase.Ended() {
			return held(ri.Spec.ID)
		}
	}
	return wire.AgentJoined{Answer: wire.JoinOK}, nil
}
