package filer

import (
	"errors"
	"log/slog"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/nolog"
)

// Waits the protocol names, each overridable by its environment variable.
const (
	EnvInboxLockWait = "SOT_INBOX_LOCK_WAIT_SECS"
	EnvInboxReadWait = "SOT_INBOX_READ_WAIT_SECS"
	InboxLockWait    = 2 * time.Second // a writer's bound on the exclusive lock
	InboxReadWait    = 3 * time.Second // a reader's bound on the shared lock
)

// ErrLockTimeout is wrapped by an Append whose lock stayed held past LockWait;
// nothing was appended.
var ErrLockTimeout = errors.New("the inbox lock was held past the wait")

// ErrBusy is wrapped by a read whose shared lock stayed held past ReadWait: the
// inbox is being written, so try again (poll exits 75); it is never a skip.
var ErrBusy = errors.New("the inbox is being written")

// Filer files into and reads from the inboxes of one comm home.
type Filer struct {
	Home     home.Home
	LockWait time.Duration // bound on a writer's exclusive lock
	ReadWait time.Duration // bound on a reader's shared lock
	// Manager is line 1 of this box's inbox lock manager (ComputeManager). It picks
	// how a lock is waited for: tried every 15–25 ms under "nfs4 …", else polled
	// finely (see retryDelay).
	Manager string
	Log     *slog.Logger
	Now     func() time.Time
	// Observer, when set, is told each lock wait, fsync and append.
	Observer Observer

	windows idWindows // the dedupe window of each inbox this Filer appends to
}

// New makes a filer for h with the environment's waits, this box's lock manager
// for h, no logger (nolog) and the wall clock.
func New(h home.Home) *Filer { return NewLogged(h, nil) }

// NewLogged is New logging to log, from its first line on: the warning that
// this box's lock manager is unknown is logged as the filer is made.
func NewLogged(h home.Home, log *slog.Logger) *Filer {
	f := &Filer{
		Home:     h,
		LockWait: home.EnvSeconds(EnvInboxLockWait, InboxLockWait),
		ReadWait: home.EnvSeconds(EnvInboxReadWait, InboxReadWait),
		Log:      nolog.Or(log),
		Now:      time.Now,
	}
	m, err := OwnManager(h)
	if err != nil {
		f.Log.Warn("cannot tell which lock manager serves the comm home; waiting for inbox locks as on a local disk", "home", h.Dir, "err", err)
	}
	f.Manager = m
	return f
}

func (f *Filer) now() time.Time {
	if f.Now == nil {
		return time.Now()
	}
	return f.Now()
}

func (f *Filer) log() *slog.Logger { return nolog.Or(f.Log) }
