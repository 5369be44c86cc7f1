package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/sotcomm/sotd/internal/backoff"
	"github.com/sotcomm/sotd/presence"
)

// runWatchEvery is how often a daemon checks that the files it holds by path
// are still there.
const runWatchEvery = 2 * time.Second

// watchRun is the service that checks, every runWatchEvery, that the paths of
// the socket, its lock, run/daemons.lock and the daemon's record still name the
// files this daemon holds. Deleting run/ (a cleanup script, a tmpfs remounted)
// leaves a daemon listening on a socket no client reaches and holding locks no
// other daemon sees. What is gone it puts back in place and logs as an error,
// once each time; when it cannot (another daemon holds the path now) it fails
// fatally, which ends the daemon rather than let two run.
func (d *Daemon) watchRun(ep *endpoint, p *presence.Presence) service {
	return service{name: "run watch", run: func(ctx context.Context) error {
		t := time.NewTicker(runWatchEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
			}
			put, err := ep.restore(d.log)
			if err == nil {
				var more []string
				more, err = p.Restore()
				put = append(put, more...)
			}
			if len(put) > 0 {
				d.log.Error("files this daemon holds were deleted under it (was run/ removed?); it put them back, so clients reach it again and a second daemon is refused", "restored", strings.Join(put, ", "))
			}
			if err != nil {
				return backoff.Fatal(fmt.Errorf("files this daemon holds were deleted under it and it could not put them back, so it stops rather than run beside another daemon: %w", err))
			}
		}
	}}
}

// restore takes the socket's lock again and binds a new socket where their
// paths no longer name this daemon's, and says which it put back. It fails when
// another daemon holds the lock or answers at the socket now.
func (e *endpoint) restore(log *slog.Logger) ([]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, nil
	}
	var put []string
	if !presence.Holds(e.lock) {
		if err := e.prepareFolder(); err != nil {
			return put, err
		}
		l := socketLock(e.path)
		switch held, err := l.TryLock(); {
		case err != nil:
			return put, fmt.Errorf("lock %s: %w", l.Path(), err)
		case !held:
			return put, fmt.Errorf("another daemon holds %s now", l.Path())
		}
		e.lock.Unlock()
		e.lock = l
		put = append(put, l.Path())
	}
	if e.sock == nil {
		return put, nil
	}
	if fi, err := os.Lstat(e.path); err == nil && os.SameFile(fi, e.sock) {
		return put, nil
	}
	if pid, live := probe(e.path); live {
		return put, fmt.Errorf("a daemon with pid %s answers at %s now", pid, e.path)
	}
	if err := os.Remove(e.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return put, fmt.Errorf("remove %s: %w", e.path, err)
	}
	ln, sock, err := bind(e.path, log)
	if err != nil {
		return put, err
	}
	old := e.ln
	e.ln, e.sock = ln, sock
	old.Close() // the accept loop wakes and moves to ln
	return append(put, e.path), nil
}
