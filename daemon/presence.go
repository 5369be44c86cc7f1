package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
)

// presenceWait bounds a starting daemon's wait for a lock-manager reset to end.
const presenceWait = 10 * time.Second

// daemonsLock is run/daemons.lock. Every daemon on a comm folder, on any box that
// shares it, holds it shared for its whole life; a lock-manager reset takes it
// exclusively without waiting, so it runs only when no daemon does. The file is
// never removed (a holder of the old file would lock an orphan).
func daemonsLock(h home.Home) *flock.Flock {
	return flock.New(filepath.Join(h.Dir, "run", "daemons.lock"), flock.SetPermissions(home.FileMode))
}

// holdPresence takes daemons.lock shared for this daemon's life.
func holdPresence(h home.Home) (*flock.Flock, error) {
	if err := home.MkdirPrivate(filepath.Join(h.Dir, "run")); err != nil {
		return nil, err
	}
	l := daemonsLock(h)
	ctx, cancel := context.WithTimeout(context.Background(), presenceWait)
	defer cancel()
	ok, err := l.TryRLockContext(ctx, 20*time.Millisecond)
	switch {
	case err != nil && !errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("take %s: %w", l.Path(), err)
	case !ok:
		return nil, fmt.Errorf("%s stayed locked for %s: a lock-manager reset is running on this folder; start the daemon again when it has finished", l.Path(), presenceWait)
	}
	return l, nil
}

// ResetLockManager is `sotd lock-manager reset`: it replaces the folder's
// inbox-lock-manager record with this box's own manager, only on the folder's
// hub and only while no daemon runs on the folder. It says what it did.
func ResetLockManager(h home.Home, host, hostsPath string, log *slog.Logger) (string, error) {
	if role := roleOf(h, host, hostsPath, log); !role.Hub {
		return "", fmt.Errorf("only the hub of this folder writes its inbox-lock-manager record, and this box is not it (%s); run the reset on the hub", role)
	}
	if err := home.MkdirPrivate(filepath.Join(h.Dir, "run")); err != nil {
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
