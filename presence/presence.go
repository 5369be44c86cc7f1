// Package presence marks a daemon as running on its comm folder, so that a
// second daemon for the same box is refused and a lock-manager reset runs only
// while no daemon runs on the folder, on any box that shares it. It is its own
// package so `sotd lock-manager reset` needs no daemon to be linked in.
package presence

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry/reglock"
	"github.com/sotcomm/sotd/topology"
)

// wait bounds a starting daemon's wait for a lock-manager reset to end.
const wait = 10 * time.Second

// daemonsLock is run/daemons.lock. Every daemon on a comm folder, on any box that
// shares it, holds it shared for its whole life; a lock-manager reset takes it
// exclusively without waiting, so it runs only when no daemon does. The file is
// never removed (a holder of the old file would lock an orphan).
func daemonsLock(h home.Home) *flock.Flock {
	return flock.New(filepath.Join(h.RunFolder(), "daemons.lock"), flock.SetPermissions(home.FileMode))
}

// Presence is what marks a daemon as running on its home: run/daemons.lock held
// shared, and the record daemon.<box> in the home's root naming its process. A
// flock binds only those who open the same file, so once run/ is deleted under
// a daemon (its socket, the socket's lock and daemons.lock with it) a second
// daemon for the same box would make new files, lock them and start beside the
// first, and a reset would take a daemons.lock no daemon holds. The record
// outlives run/ and is checked against the live process it names, so serve
// refuses while the first runs; the run/ watch puts the files back.
type Presence struct {
	h      home.Home
	host   string
	record string // <home>/daemon.<box>

	mu     sync.Mutex   // guards shared and mine, which the run/ watch replaces
	shared *flock.Flock // run/daemons.lock
	mine   os.FileInfo  // the record as this daemon wrote it; nil before claim
}

// Record is the record of the daemon of box host on h: one line in the
// form of a registry lock holder, name:machine:boot:pidns:pid:start.
func Record(h home.Home, host string) string {
	return filepath.Join(h.Dir, "daemon."+home.FileName(host))
}

// Hold refuses while another daemon runs on h for box host, then takes
// daemons.lock shared for this daemon's life. Claim writes the record once the
// socket is this daemon's.
func Hold(h home.Home, host string) (*Presence, error) {
	p := &Presence{h: h, host: host, record: Record(h, host)}
	if other, ok, err := p.other(); err != nil {
		return nil, err
	} else if ok {
		return nil, fmt.Errorf("a daemon already serves this home for box %s: pid %d, as %s records; stop it first (kill %d, or stop the service that runs it), then start this one", host, other.PID, p.record, other.PID)
	}
	l, err := takeShared(h)
	if err != nil {
		return nil, err
	}
	p.shared = l
	return p, nil
}

// takeShared takes daemons.lock shared, waiting out a lock-manager reset.
func takeShared(h home.Home) (*flock.Flock, error) {
	if err := home.MkdirPrivate(h.RunFolder()); err != nil {
		return nil, err
	}
	l := daemonsLock(h)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	ok, err := l.TryRLockContext(ctx, 20*time.Millisecond)
	switch {
	case err != nil && !errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("take %s: %w", l.Path(), err)
	case !ok:
		return nil, fmt.Errorf("%s stayed locked for %s: a lock-manager reset is running on this folder; start the daemon again when it has finished", l.Path(), wait)
	}
	return l, nil
}

// other is the process the record names when this box sees it running and it
// is not this process (tests run several daemons in one, which the socket's
// lock sets apart). A record that does not parse names nobody.
func (p *Presence) other() (reglock.Holder, bool, error) {
	b, err := p.h.ReadFile(p.record, reglock.MaxRecord)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return reglock.Holder{}, false, nil
	case err != nil:
		return reglock.Holder{}, false, fmt.Errorf("read the daemon record %s: %w", p.record, err)
	}
	r, ok := reglock.ParseHolder(strings.TrimSpace(string(b)))
	return r, ok && r.PID != os.Getpid() && reglock.Running(r), nil
}

// Running is the daemon of box host on h when its record names a process
// this box sees running, other than this one.
func Running(h home.Home, host string) (reglock.Holder, bool, error) {
	return (&Presence{h: h, host: host, record: Record(h, host)}).other()
}

// Claim writes the record naming this process.
func (p *Presence) Claim() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.claimLocked()
}

func (p *Presence) claimLocked() error {
	if err := home.WriteAtomic(p.record, []byte(reglock.Me(p.host).String()+"\n")); err != nil {
		return err
	}
	fi, err := os.Lstat(p.record)
	if err != nil {
		return fmt.Errorf("read back %s: %w", p.record, err)
	}
	p.mine = fi
	return nil
}

// Restore puts back daemons.lock and the record where their paths no longer
// name what this daemon holds, and says which it put back. It fails when
// another daemon's record has replaced this one's: that daemon runs now.
func (p *Presence) Restore() ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var put []string
	if !Holds(p.shared) {
		l, err := takeShared(p.h)
		if err != nil {
			return put, err
		}
		p.shared.Unlock()
		p.shared = l
		put = append(put, l.Path())
	}
	if fi, err := os.Lstat(p.record); err == nil && os.SameFile(fi, p.mine) {
		return put, nil
	}
	if other, ok, err := p.other(); err != nil {
		return put, err
	} else if ok {
		return put, fmt.Errorf("%s now names pid %d, another daemon serving this home for box %s", p.record, other.PID, p.host)
	}
	if err := p.claimLocked(); err != nil {
		return put, err
	}
	return append(put, p.record), nil
}

// Release removes the record, unless another daemon's has replaced it, and
// lets daemons.lock go.
func (p *Presence) Release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if fi, err := os.Lstat(p.record); err == nil && p.mine != nil && os.SameFile(fi, p.mine) {
		os.Remove(p.record)
	}
	p.shared.Unlock()
}

// ResetLockManager is `sotd lock-manager reset`: it replaces the folder's
// inbox-lock-manager record with this box's own manager, only on the folder's
// hub and only while no daemon runs on the folder. It says what it did.
func ResetLockManager(h home.Home, host, hostsPath string, log *slog.Logger) (string, error) {
	if role := topology.Resolve(h.Dir, host, hostsPath, log); !role.Hub {
		return "", fmt.Errorf("only the hub of this folder writes its inbox-lock-manager record, and this box is not it (%s); run the reset on the hub", role)
	}
	if err := home.MkdirPrivate(h.RunFolder()); err != nil {
		return "", err
	}
	l := daemonsLock(h)
	ok, err := l.TryLock()
	if err != nil {
		return "", fmt.Errorf("take %s: %w", l.Path(), err)
	}
	if !ok {
		return "", fmt.Errorf("a daemon is running on this folder (it holds %s); stop every daemon on the folder, on every box that shares it, then run the reset again", l.Path())
	}
	defer l.Unlock()
	own, err := filer.OwnManager(h)
	if err != nil {
		log.Warn("the comm home's mount could not be read, so its inbox lock is taken to be this machine's own", "home", h.Dir, "manager", own, "err", err)
	}
	if own == filer.NoManager {
		return "", errors.New("this machine has no machine id, so it names no inbox lock manager; give it one (/etc/machine-id on Linux) and run the reset again")
	}
	was, writer, present, err := filer.ReadRecord(h.LockManager())
	if err != nil {
		return "", err
	}
	// Removed, then made by the hub's own exclusive create: no daemon runs to
	// race it, and a daemon starting now waits for daemons.lock.
	if err := os.Remove(h.LockManager()); err != nil && present {
		return "", fmt.Errorf("remove %s: %w", h.LockManager(), err)
	}
	if err := home.SyncDir(h.Dir); err != nil {
		return "", err
	}
	if err := filer.EnsureRecord(h, own, log); err != nil {
		return "", err
	}
	if !present {
		return fmt.Sprintf("%s now names %s (there was no record)", h.LockManager(), own), nil
	}
	if writer == "" {
		writer = "an unknown machine"
	}
	return fmt.Sprintf("%s now names %s (it named %s, written by %s)", h.LockManager(), own, was, writer), nil
}

// Holds reports whether l's path still names the file l holds open.
func Holds(l *flock.Flock) bool {
	held, err := l.Stat()
	if err != nil {
		return false
	}
	now, err := os.Lstat(l.Path())
	return err == nil && os.SameFile(held, now)
}
