package workspace

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/daemon/internal/regcache"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/logonce"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/screen"
	"github.com/sotcomm/sotd/wire"
)

// Manager is the daemon's rows: one backend made at start, the runner
// records the agent-layer check reads, and the handles bound to rows in the
// registry. Every write to one row goes through its lock, so a notice and its
// Enter are never split by another caller's keys.
type Manager struct {
	home home.Home
	host string
	log  *slog.Logger
	now  func() time.Time
	b    rows.Backend
	reg  regSource // the daemon's cache, once Run has shared it (Share)

	// changed tells the stamper that the set of rows or their handles changed;
	// one pending signal is enough, so it is sized 1 and never blocks.
	changed chan struct{}
	// notify, when set, is told of the same changes (the status page's watch).
	notify func()

	// typing holds a lock for each row being typed into now: pty.input types
	// its text and then its Enter as two writes, and the backends serialise
	// one write, not a pair. A row's entry goes when its last typist is done,
	// so the map holds only rows being typed into.
	mu     sync.Mutex
	typing map[string]*typist

	// unreadable is a registry list cannot read: the page asks every tick,
	// so it is said when it starts and when it ends, not each time.
	unreadable logonce.Condition
}

func New(h home.Home, host string, log *slog.Logger, now func() time.Time, b rows.Backend) *Manager {
	return &Manager{home: h, host: host, log: log, now: now, b: b, reg: regSource{view: regcache.New(h).View}, changed: make(chan struct{}, 1), typing: map[string]*typist{}}
}

// Share makes the manager read the registry through view (the daemon's cache
// of its last parse) and tell notify when the rows or their handles change
// (the status page's watch).
func (m *Manager) Share(view func() (*regcache.View, error), notify func()) {
	m.reg, m.notify = regSource{view: view}, notify
}

// regSource is how the manager reads the registry: the view of the last
// parse, whose lookups of the rows' handles cost no walk of every entry.
type regSource struct {
	view func() (*regcache.View, error)
}

// read is the registry's parse, for a reader of named entries.
func (r regSource) read() (*registry.Doc, error) {
	v, err := r.view()
	if err != nil {
		return nil, err
	}
	return v.Doc, nil
}

// Discover takes on the rows a previous daemon left running (tmux rows outlive
// it) and records their runners, so comm commands inside them pass the
// agent-layer check again.
func (m *Manager) Discover() {
	found, err := m.b.Discover()
	if err != nil {
		m.log.Error("the rows a previous daemon left could not be found; they run on, but this daemon neither lists nor stamps them", "backend", m.b.Name(), "err", err)
		return
	}
	for _, ri := range found {
		m.record(ri)
	}
	if len(found) > 0 {
		m.log.Info("rows found again", "backend", m.b.Name(), "rows", len(found))
	}
	m.signal()
}

// record writes ri's runner record; a row without one refuses every comm
// command its agent runs, so the failure is logged loudly.
func (m *Manager) record(ri rows.RowInfo) {
	if !ri.Phase.Running() {
		return
	}
	if err := ancestry.RecordRunner(m.home, m.host, ri.Spec.ID, ri.Pid); err != nil {
		m.log.Error("the row's runner was not recorded, so comm commands inside it are refused", "row", ri.Spec.ID, "pid", ri.Pid, "err", err)
	}
}

func (m *Manager) signal() {
	select {
	case m.changed <- struct{}{}:
	default:
	}
	if m.notify != nil {
		m.notify()
	}
}

// Spawn starts a row. With a handle, the handle is bound to the row before its
// agent starts, so mail to it files as soon as the agent runs; a start that
// fails gives the handle back as it was, so no mail files to a row that never
// ran.
func (m *Manager) Spawn(req wire.WorkspaceSpawn) (wire.WorkspaceRef, error) {
	spec := rows.Spec{ID: rows.NewID(), Label: req.Label, Handle: req.Handle, Agent: rows.Agent(req.Agent), Cwd: req.Cwd, Argv: req.Argv, Env: append(req.Env, m.home.RowPath(req.Env)), Cols: req.Cols, Rows: req.Rows}
	undo := func() error { return nil }
	if spec.Handle != "" {
		if err := home.CheckHandle(spec.Handle); err != nil {
			return wire.WorkspaceRef{}, wire.Refuse(wire.CodeBadHandle, "the row was not started: %v", err)
		}
		var err error
		if _, undo, err = m.bind(spec.Handle, spec.ID, spec.Cwd); err != nil {
			return wire.WorkspaceRef{}, err
		}
	}
	ri, err := m.b.Start(spec)
	if err != nil {
		if uerr := undo(); uerr != nil {
			m.log.Error("a row that did not start still holds its handle", "row", spec.ID, "handle", spec.Handle, "err", uerr)
			return wire.WorkspaceRef{}, rowRefusal("the row was not started", fmt.Errorf("%w; and @%s could not be given back (%v): sotd leave --name %s frees it", err, spec.Handle, uerr, spec.Handle))
		}
		return wire.WorkspaceRef{}, rowRefusal("the row was not started", err)
	}
	m.record(ri)
	m.signal()
	m.log.Info("row started", "row", ri.Spec.ID, "label", ri.Spec.Label, "handle", ri.Spec.Handle, "agent", ri.Spec.Agent, "pid", ri.Pid)
	return wire.WorkspaceRef{WorkspaceID: ri.Spec.ID}, nil
}

// Destroy removes a row: its process group ends, it is Terminal, and it holds
// no handle any more: each handle bound to it is made not live at once, so mail
// to it is refused (no live session holds @h) rather than filed into an inbox
// nobody reads for the ten minutes its last stamp would last.
func (m *Manager) Destroy(id string) (wire.Done, error) {
	if ri, err := m.b.Info(id); err == nil && ri.Phase == rows.Terminal {
		return wire.Done{}, wire.Refuse(rows.Code(rows.ErrNoRow), "row %s was already removed; nothing was done", id)
	}
	if err := m.b.Remove(id); err != nil {
		return wire.Done{}, rowRefusal("the row was not removed", err)
	}
	if err := ancestry.ForgetRunner(m.home, m.host, id); err != nil {
		m.log.Warn("the removed row's runner record stays", "row", id, "err", err)
	}
	if err := m.release(id); err != nil {
		m.log.Warn("the removed row's handles were not marked ended; mail to them files until their last stamp is ten minutes old", "row", id, "err", err)
	}
	m.signal()
	m.log.Info("row removed", "row", id)
	return wire.Done{OK: true}, nil
}

// release ends the liveness of the handles the registry binds to row on this
// box: an empty last_seen is live to no reader. The binding stays, naming the
// ended row, so the row's handle is cleared for a join as any ended row's is.
func (m *Manager) release(row string) error {
	return registry.Update(m.home, registry.Ruled(), func(d *registry.Doc) error {
		n := 0
		for _, e := range d.Agents {
			if e.Host == m.host && e.WorkspaceID == row && e.LastSeen != "" {
				e.LastSeen = ""
				n++
			}
		}
		if n == 0 {
			return registry.ErrSkip
		}
		return nil
	})
}

// List is every row with the registry facts of the handle bound to it. An
// unreadable registry still lists the rows, without their agents' facts.
func (m *Manager) List() (wire.WorkspaceList, error) {
	infos, err := m.b.List()
	if err != nil {
		return wire.WorkspaceList{}, rowRefusal("the rows could not be listed", err)
	}
	v, err := m.reg.view()
	if err != nil {
		m.unreadable.Fail(m.log, slog.LevelWarn, "rows listed without their agents' facts: the registry does not read", err)
	} else {
		m.unreadable.Clear(m.log, "the registry reads again; rows are listed with their agents' facts")
	}
	out := wire.WorkspaceList{Workspaces: []wire.Workspace{}}
	for _, ri := range infos {
		w := wire.Workspace{ID: ri.Spec.ID, Label: ri.Spec.Label, Phase: string(ri.Phase), Agent: string(ri.Spec.Agent), Backend: ri.Backend, Cwd: ri.Spec.Cwd, Pid: ri.Pid}
		if ri.Phase == rows.Stopped {
			w.ExitCode = &ri.ExitCode
		}
		if !ri.Started.IsZero() {
			w.Started = ri.Started.UTC().Format(time.RFC3339)
		}
		if h, e := m.handleOf(v, ri.Spec); e != nil {
			w.AgentHandle, w.AgentState, w.AgentSummary, w.AgentStatusAt = h, e.State, e.Summary, e.StatusAt
		}
		out.Workspaces = append(out.Workspaces, w)
	}
	return out, nil
}

// handleOf is the handle a row acts as and its entry: of the handles the
// registry binds to the row on this box, the spec's own, else the first by
// name; none when it binds none (a newer row took it, or it never had one).
// v may be nil.
func (m *Manager) handleOf(v *regcache.View, spec rows.Spec) (string, *registry.Entry) {
	if v == nil {
		return "", nil
	}
	hs := v.Bound(m.host, spec.ID)
	if len(hs) == 0 {
		return "", nil
	}
	h := hs[0]
	if slices.Contains(hs, spec.Handle) {
		h = spec.Handle
	}
	return h, v.Doc.Agents[h]
}

// Screen is what the row shows, as pty.screen answers it.
func (m *Manager) Screen(id string) (wire.PtyScreen, error) {
	s, err := m.b.Screen(id)
	if err != nil {
		return wire.PtyScreen{}, rowRefusal("the row's screen could not be read", err)
	}
	out := wire.PtyScreen{Cols: s.Cols, Rows: s.Rows, Lines: make([]string, s.Rows), Cursor: wire.Cursor{Row: s.CursorRow, Col: s.CursorCol}, Dim: screen.DimRanges(s)}
	for r := range s.Rows {
		out.Lines[r] = strings.TrimRight(s.Line(r), " ")
	}
	return out, nil
}

// Input types data into the row and then, when enter is set, CR as a write of
// its own; the row's lock keeps the two together.
func (m *Manager) Input(req wire.PtyInput) (wire.Done, error) {
	data, err := base64.StdEncoding.DecodeString(req.DataB64)
	if err != nil {
		return wire.Done{}, wire.Refuse(wire.CodeBadRequest, "data_b64 is not base64 (%v); nothing was typed", err)
	}
	if err := m.typeInto(req.WorkspaceID, data, req.Enter); err != nil {
		return wire.Done{}, rowRefusal("the input was not typed", err)
	}
	return wire.Done{OK: true}, nil
}

func (m *Manager) typeInto(id string, data []byte, enter bool) error {
	defer m.lockRow(id)()
	if len(data) > 0 {
		if err := m.b.Input(id, data); err != nil {
			return err
		}
	}
	if enter {
		return m.b.Input(id, []byte{'\r'})
	}
	return nil
}

// typist is one row's typing lock and how many hold or wait for it.
type typist struct {
	sync.Mutex
	n int
}

// lockRow takes row id's typing lock; unlock lets it go, and forgets it when
// no one else holds or waits for it.
func (m *Manager) lockRow(id string) (unlock func()) {
	m.mu.Lock()
	t := m.typing[id]
	if t == nil {
		t = &typist{}
		m.typing[id] = t
	}
	t.n++
	m.mu.Unlock()
	t.Lock()
	return func() {
		t.Unlock()
		m.mu.Lock()
		defer m.mu.Unlock()
		if t.n--; t.n == 0 {
			delete(m.typing, id)
		}
	}
}

// Close lets go of the backend: PTY rows end with the daemon, tmux rows run on.
func (m *Manager) Close() {
	if err := m.b.Close(); err != nil {
		m.log.Warn("the rows backend did not close cleanly", "backend", m.b.Name(), "err", err)
	}
}

// rowRefusal is a backend error in the rows package's stable codes.
func rowRefusal(what string, err error) error {
	if _, ok := wire.RefusalOf(err); ok {
		return err
	}
	return wire.Refuse(rows.Code(err), "%s: %v", what, err)
}

// Stream is a streaming op's side of its connection.
type Stream struct {
	Peer int                          // the asking process; 0 where the OS does not tell
	Gone context.Context              // ends when the client has left
	Emit func(op string, v any) error // sends an event with the request's id
}

// attacher is a backend whose rows a terminal attaches to through the daemon:
// the PTY's, which the daemon owns. A tmux row is attached to with tmux itself.
type attacher interface {
	Attach(id string) (*rows.Attachment, error)
}

// Attach relays a PTY row's output to the client as pty.output events, the
// screen as it is first, until the client leaves or the row's program exits;
// the client types with pty.input on the same connection.
func (m *Manager) Attach(st Stream, id string) (wire.PtyDetached, error) {
	a, ok := m.b.(attacher)
	if !ok {
		return wire.PtyDetached{}, wire.Refuse(rows.Code(rows.ErrUnsupported), "row %s runs on %s, which sotd attach reaches directly, not through the daemon; nothing was attached", id, m.b.Name())
	}
	att, err := a.Attach(id)
	if err != nil {
		return wire.PtyDetached{}, rowRefusal("nothing was attached", err)
	}
	defer att.Close()
	send := func(b []byte) error {
		return st.Emit(wire.EvPtyOutput, wire.PtyOutput{DataB64: base64.StdEncoding.EncodeToString(b)})
	}
	if err := send(att.Screen); err != nil {
		return wire.PtyDetached{Why: err.Error()}, nil
	}
	for {
		select {
		case <-st.Gone.Done():
			return wire.PtyDetached{Why: "the terminal left"}, nil
		case b, ok := <-att.Output:
			if !ok {
				if errors.Is(att.Err(), rows.ErrNotRunning) {
					return wire.PtyDetached{Why: "its program exited"}, nil
				}
				return wire.PtyDetached{Why: att.Err().Error()}, nil
			}
			if err := send(b); err != nil {
				return wire.PtyDetached{Why: err.Error()}, nil
			}
		}
	}
}

// Stamp keeps the rows' handles live (the liveness stamper) until ctx ends.
func (m *Manager) Stamp(ctx context.Context) error { return newStamper(m).run(ctx) }

// WatchDialogs reads each watched row's screen every period for a dialog or
// floor until ctx ends. Not on Windows (Dialogs).
func (m *Manager) WatchDialogs(ctx context.Context, every time.Duration) error {
	return dialogWatch{m: m, every: every}.run(ctx)
}

// Dialogs says whether this OS runs the dialog watch: not Windows, as the
// protocol says.
const Dialogs = runtime.GOOS != "windows"
