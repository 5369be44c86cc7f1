package rows

import (
	"errors"
	"os/exec"
	"runtime"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/screen"
)

// Phase is where a row is in its life; the package doc says when each applies.
type Phase string

const (
	Starting Phase = "Starting"
	Ready    Phase = "Ready"
	Ending   Phase = "Ending"
	Stopped  Phase = "Stopped"
	Terminal Phase = "Terminal"
)

// Running reports whether the row's process runs and is not being stopped: the
// phases whose handle the daemon keeps live.
func (p Phase) Running() bool { return p == Starting || p == Ready }

// Ended reports whether the row holds nothing any more, so its handle is free.
// A Stopped row has not ended: it may still be looked at, and it keeps its handle
// until it is removed.
func (p Phase) Ended() bool { return p == Terminal }

// StartingFor is how long a row that has drawn nothing is Starting.
const StartingFor = time.Second

// RowInfo is what a backend knows of one row.
type RowInfo struct {
	Spec     Spec
	Backend  string // "tmux" or "pty"
	Phase    Phase
	Pid      int       // the agent process, leader of the row's process group
	Started  time.Time // when the process was started (to the second for a discovered tmux row)
	ExitCode int       // once Stopped: the exit status, or -1 when a signal ended it
}

// Backend runs rows. Every method is safe for concurrent use.
type Backend interface {
	// Name is "tmux" or "pty".
	Name() string
	// Start runs spec.Argv as a new row and answers once the process exists.
	Start(spec Spec) (RowInfo, error)
	// Info is one row's state; a removed row answers Terminal.
	Info(id string) (RowInfo, error)
	// List is every row the backend runs, Stopped ones included, by id.
	List() ([]RowInfo, error)
	// Discover finds the rows a previous daemon left running and takes them on.
	// Only tmux rows survive a daemon; the PTY backend finds none.
	Discover() ([]RowInfo, error)
	// Screen is what the row shows now, cell attributes and cursor included.
	// It also says when each row and the cursor last changed
	// (screen.Screen's Changed): the PTY's by its emulator, tmux's by the
	// output a control client sees, with no times while it cannot tell.
	Screen(id string) (*screen.Screen, error)
	// Texts is what each row shows now without cell attributes (nothing is
	// dim): enough to read its words, and cheaper than a Screen each. A row
	// that is gone is left out.
	Texts(ids []string) (map[string]*screen.Screen, error)
	// Input types data into the row as keys typed by a person: '\r' is Enter.
	// Writes to one row are serialized.
	Input(id string, data []byte) error
	// Stop ends the row's process group (SIGTERM, then SIGKILL after
	// Options.StopGrace) and waits for it; the row stays, Stopped.
	Stop(id string) error
	// Remove stops the row if it runs and deletes it; it is Terminal from then on.
	Remove(id string) error
	// Close lets go of the backend. PTY rows end with it; tmux rows keep running.
	Close() error
}

// Options tune a backend; the zero value is the default.
type Options struct {
	Now       func() time.Time // the clock phases are read against
	Cols      int              // a row's terminal width (120)
	Rows      int              // and height (40)
	StopGrace time.Duration    // from SIGTERM to SIGKILL in Stop (3 s)
}

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Cols <= 0 {
		o.Cols = 120
	}
	if o.Rows <= 0 {
		o.Rows = 40
	}
	if o.StopGrace <= 0 {
		o.StopGrace = 3 * time.Second
	}
	return o
}

// Choose is the backend for this box: tmux on its private socket where a tmux
// binary is on PATH (not on Windows), else the built-in PTY.
func Choose(h home.Home, host string, opt Options) Backend {
	if runtime.GOOS != "windows" {
		if bin, err := exec.LookPath("tmux"); err == nil {
			return newTmux(h, host, bin, opt)
		}
	}
	return NewPTY(opt)
}

// Errors every backend wraps, so callers can tell them apart with errors.Is.
var (
	ErrNoRow       = errors.New("no such row")
	ErrRowExists   = errors.New("row already exists")
	ErrNotRunning  = errors.New("row is not running")
	ErrUnsupported = errors.New("not supported on this OS yet")
)

// Code is the stable code for an error of this package, for the wire.
func Code(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrNoRow):
		return "no_row"
	case errors.Is(err, ErrRowExists):
		return "row_exists"
	case errors.Is(err, ErrNotRunning):
		return "row_not_running"
	case errors.Is(err, ErrBadSpec):
		return "bad_spec"
	case errors.Is(err, ErrUnsupported):
		return "unsupported"
	}
	return "row_failed"
}
