package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/daemon/internal/refuse"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/machine"
	"github.com/sotcomm/sotd/wire"
)

// A session outside any row has no row to keep it live, so after ten idle
// minutes mail to it would fail though its agent waits at its prompt. At join
// the client names its agent process (session.watch); the daemon records it in
// the home, run/<host>/sessions/<handle>.json, and the stamper stamps the
// handle with the rows' handles while that process runs. The record outlives a
// daemon restart; the stamper removes it once the process has ended, the
// handle has left the registry, or a row or another box took it.

// sessionRecord is one watched session: its handle and its agent process, with
// the boot that pid and start belong to.
type sessionRecord struct {
	Handle string `json:"handle"`
	PID    int    `json:"pid"`
	Start  string `json:"start"`
	Boot   string `json:"boot"`
}

// maxSessionRecord bounds a session record's read: four short fields.
const maxSessionRecord = 4096

// WatchSession is session.watch: it checks the process itself, since a record
// of the wrong one would stamp a handle live for as long as that one runs. The
// peer, asker, is this daemon's own account (checked at hello), and the agent
// it names must be its own (see checkAsker).
func (m *Manager) WatchSession(req wire.SessionWatch, asker int) (wire.Done, error) {
	path, err := m.home.SessionRecord(m.host, req.Handle)
	if err != nil {
		return wire.Done{}, wire.Refuse(wire.CodeBadHandle, "%v", err)
	}
	if req.PID <= 0 {
		return wire.Done{}, wire.Refuse(wire.CodeBadRequest, "pid %d is not a process id; @%s is not watched", req.PID, req.Handle)
	}
	t, err := ancestry.OSTable()
	if err != nil {
		return wire.Done{}, wire.Refuse(wire.CodeBadRequest, "this daemon cannot read processes (%v); @%s is not watched", err, req.Handle)
	}
	p, err := t.Proc(req.PID)
	switch {
	case errors.Is(err, ancestry.ErrEnded):
		return wire.Done{}, wire.Refuse(wire.CodeBadRequest, "process %d is not running; @%s is not watched", req.PID, req.Handle)
	case err != nil:
		return wire.Done{}, wire.Refuse(wire.CodeBadRequest, "process %d cannot be read (%v); @%s is not watched", req.PID, err, req.Handle)
	case !machine.Same(p.Start, req.Start):
		return wire.Done{}, wire.Refuse(wire.CodeBadRequest, "process %d started at %s, not %s: it is another process than the session's agent; @%s is not watched", req.PID, p.Start, req.Start, req.Handle)
	case !ancestry.IsAgent(p):
		return wire.Done{}, wire.Refuse(wire.CodeBadRequest, "process %d (%s) is not an agent (claude or codex), so its life says nothing of the session's; @%s is not watched", req.PID, baseArg0(p), req.Handle)
	}
	if err := checkAsker(p, asker, req.Handle); err != nil {
		return wire.Done{}, err
	}
	doc, err := m.reg.read()
	if err != nil {
		return wire.Done{}, refuse.Unreadable(wire.CodeUnreadable, "@"+req.Handle+" is not watched", err)
	}
	e := doc.Agents[req.Handle]
	switch {
	case e == nil:
		return wire.Done{}, wire.Refuse(wire.CodeBadRequest, "@%s is not in the registry; join first", req.Handle)
	case e.Host != m.host:
		return wire.Done{}, wire.Refuse(wire.CodeBadRequest, "@%s is listed under box %s, not this one (%s); @%s is not watched", req.Handle, e.Host, m.host, req.Handle)
	case e.WorkspaceID != "":
		return wire.Done{}, wire.Refuse(wire.CodeBadRequest, "@%s is bound to row %s, which the daemon stamps while it runs", req.Handle, e.WorkspaceID)
	}
	rec, err := json.Marshal(sessionRecord{Handle: req.Handle, PID: req.PID, Start: req.Start, Boot: machine.Boot()})
	if err != nil {
		return wire.Done{}, err
	}
	if err := home.MkdirPrivate(filepath.Dir(path)); err != nil {
		return wire.Done{}, wire.Refuse(wire.CodeFileFailed, "@%s is not watched: %v", req.Handle, err)
	}
	if err := home.WriteAtomic(path, append(rec, '\n')); err != nil {
		return wire.Done{}, wire.Refuse(wire.CodeFileFailed, "@%s is not watched: %v", req.Handle, err)
	}
	m.log.Info("session watched", "handle", req.Handle, "agent_pid", req.PID)
	m.signal()
	return wire.Done{OK: true}, nil
}

// checkAsker refuses the watch of p unless p runs as this daemon's account and
// is the asking process or one of its ancestors: any process named claude or
// codex would otherwise do, another account's, or one a local user started
// under that name to keep someone else's handle live for as long as it runs.
// Where the OS does not tell the asker (asker 0), the socket's private folder
// is the only gate, as at hello.
func checkAsker(p ancestry.Proc, asker int, handle string) error {
	if asker == 0 {
		return nil
	}
	uid, err := ancestry.UID(p.PID)
	if err != nil {
		return wire.Refuse(wire.CodeBadRequest, "the account of process %d cannot be read (%v); @%s is not watched", p.PID, err, handle)
	}
	if uid != os.Getuid() {
		return wire.Refuse(wire.CodeBadRequest, "process %d runs as uid %d, not as this daemon's account (uid %d); @%s is not watched", p.PID, uid, os.Getuid(), handle)
	}
	chain, err := ancestry.Walk(asker)
	if err != nil {
		return wire.Refuse(wire.CodeBadRequest, "the ancestry of the asking process %d cannot be read (%v); @%s is not watched", asker, err, handle)
	}
	for _, a := range chain {
		if a.PID == p.PID && machine.Same(a.Start, p.Start) {
			return nil
		}
	}
	return wire.Refuse(wire.CodeBadRequest, "process %d is not an ancestor of the asking process %d: a session watches only its own agent; @%s is not watched", p.PID, asker, handle)
}

func baseArg0(p ancestry.Proc) string {
	if len(p.Argv) == 0 {
		return "unknown"
	}
	return filepath.Base(p.Argv[0])
}

// watchedSessions reads the session records. One that cannot be read or parsed
// is removed with a warning: it stamps nothing, and the session's next join
// writes it again.
func (m *Manager) watchedSessions() ([]sessionRecord, error) {
	dir := m.home.SessionsDir(m.host)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the session records in %s: %w", dir, err)
	}
	var out []sessionRecord
	for _, de := range entries {
		name := de.Name()
		if !strings.HasSuffix(name, ".json") || strings.Contains(name, ".tmp.") {
			continue
		}
		path := filepath.Join(dir, name)
		var rec sessionRecord
		b, err := m.home.ReadFile(path, maxSessionRecord)
		if err == nil {
			err = json.Unmarshal(b, &rec)
		}
		if err == nil && rec.Handle+".json" != name {
			err = fmt.Errorf("it names @%s", rec.Handle)
		}
		if err != nil {
			m.log.Warn("a session record could not be read and is removed; the session's next join writes it again", "path", path, "err", err)
			m.forgetSession(name[:len(name)-len(".json")])
			continue
		}
		out = append(out, rec)
	}
	return out, nil
}

// forgetSession removes handle's record.
func (m *Manager) forgetSession(handle string) {
	path, err := m.home.SessionRecord(m.host, handle)
	if err == nil {
		err = os.Remove(path)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		m.log.Warn("a session record stays", "handle", handle, "err", err)
	}
}

// sessionRunning reports whether rec's agent still runs: a record of another
// boot names no process of this one. A process this daemon cannot judge (an
// unreadable record, an unknown start) is taken to run, as the protocol never
// takes a death it cannot prove.
func sessionRunning(rec sessionRecord) bool {
	if boot := machine.Boot(); rec.Boot != "" && boot != machine.Unknown && rec.Boot != boot {
		return false
	}
	return ancestry.Still(rec.PID, rec.Start) != ancestry.Gone
}
