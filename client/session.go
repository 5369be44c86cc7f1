package client

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// Session is one client invocation: where it runs and where it writes.
type Session struct {
	Home   home.Home
	Host   string // this box's declared name
	Row    string // $SOT_WORKSPACE_ID: the row this session runs in, "" in a bare shell
	Cwd    string
	Stdout io.Writer
	Stderr io.Writer
	Now    func() time.Time
	// Logger is where the libraries a verb runs (the filer) log, nil for
	// nowhere: a verb's own words go to Stdout and Stderr, and its filer's
	// warnings (a dead writer's partial line cut back, a lock manager it
	// cannot tell) to Stderr.
	Logger *slog.Logger

	id *identity // decided on first use (ident)
}

// NewSession reads the environment.
func NewSession(stdout, stderr io.Writer) (*Session, error) {
	h, err := home.Resolve()
	if err != nil {
		return nil, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("the current folder is unknown: %w", err)
	}
	return &Session{
		Home:   h,
		Host:   home.SelfHost(),
		Row:    os.Getenv(home.EnvWorkspaceID),
		Cwd:    cwd,
		Stdout: stdout,
		Stderr: stderr,
		Now:    time.Now,
		Logger: slog.New(slog.NewTextHandler(stderr, nil)),
	}, nil
}

// filer is a filer of s's home that logs to s.Logger.
func (s *Session) filer() *filer.Filer { return filer.NewLogged(s.Home, s.Logger) }

func (s *Session) out(format string, args ...any) { fmt.Fprintf(s.Stdout, format+"\n", args...) }
func (s *Session) warn(format string, args ...any) {
	fmt.Fprintf(s.Stderr, format+"\n", args...)
}

// ErrNotJoined says a session has no handle yet.
var ErrNotJoined = errors.New("this session has not joined; run sotd join first")

// Me is this session's handle: $SOT_COMM_NAME, else the one its self slot pins
// (see identity). A session with neither has not joined.
func (s *Session) Me() (string, error) {
	if n := os.Getenv(home.EnvName); n != "" {
		return n, home.CheckHandle(n)
	}
	self, ok, err := s.readSlot()
	if err != nil {
		return "", err
	}
	if !ok {
		return "", ErrNotJoined
	}
	return self.Name, home.CheckHandle(self.Name)
}

// bindingRefusal is the protocol's refusal for a handle another row holds, or ""
// when this process may act as name. A row that held the handle was displaced by
// a newer row's declaration (agent.join), and is told where the handle went.
func (s *Session) bindingRefusal(e *registry.Entry, name string) string {
	if e == nil || !e.BoundElsewhere(s.Row) {
		return ""
	}
	if s.Row != "" {
		return fmt.Sprintf("@%s moved to row %s; this row, %s, no longer holds it, so it is not this row's inbox", name, e.WorkspaceID, s.Row)
	}
	return fmt.Sprintf("@%s belongs to row %s; this process carries no row id, so it is not this row's inbox", name, e.WorkspaceID)
}

// admitted runs the agent-layer check (package ancestry) before a verb that
// reads mail, sends, joins or stamps: a process that names a row must run inside
// it, and an agent started inside a session has no comm identity. On a refusal
// the verb does nothing and exits 1 with the reason.
func (s *Session) admitted() bool {
	if err := s.ident().refused; err != nil {
		s.out("FAILED: %v; nothing was done", err)
		return false
	}
	return true
}

// touch stamps last_seen, best effort, within the ~1 s touch bound. A stamp under
// touchFresh old is left alone: liveness is measured in minutes, and skipping the
// write (the registry lock, a temp file, a rename, three fsyncs: about 2 ms) keeps
// a send to one fsync.
func (s *Session) touch(d *registry.Doc, name string) {
	if e, ok := d.Agents[name]; ok {
		if t, err := time.Parse(time.RFC3339, e.LastSeen); err == nil && s.Now().Sub(t) < touchFresh && s.Now().Sub(t) >= 0 {
			return
		}
	}
	if err := registry.Touch(s.Home, name, s.Now(), registry.TouchWait); err != nil {
		s.warn("sotd: last_seen for @%s not stamped: %v", name, err)
	}
}

// touchFresh is a daemon's stamp period (a row's, and a plain session's agent
// once the daemon knows it) with half a period to spare, so a session the daemon
// stamps is never stamped by its sends too. A session no daemon stamps is stamped
// by a send at most this long after its last stamp: it stays live for at least
// LiveFor less touchFresh (8.5 of the protocol's 10 minutes) after any send.
const touchFresh = 90 * time.Second
