package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/sotcomm/sotd/home"
)

// endpoint is the listening socket and the lock that makes it this daemon's.
type endpoint struct {
	path string
	home home.Home // whose folders, the socket's included when it is in it, are this daemon's own

	mu     sync.Mutex // guards what follows, which the run/ watch replaces
	ln     *net.UnixListener
	sock   os.FileInfo // the socket file as bound; nil where the OS cannot stat one
	lock   *flock.Flock
	closed bool // accepting has stopped: nothing is bound again
}

// probeWait bounds the dial that asks whether a daemon answers at a socket.
const probeWait = time.Second

// listen takes path for this daemon. The lock beside the socket, held for the
// daemon's life, settles which of two daemons starting at once serves; whoever
// holds it may replace a socket file, since any daemon that made one without the
// lock has died. A daemon answering at path without the lock (another build) is
// respected too.
func listen(path string, h home.Home, log *slog.Logger) (*endpoint, error) {
	e := &endpoint{path: path, home: h}
	if err := e.prepareFolder(); err != nil {
		return nil, err
	}
	lock := socketLock(path)
	held, err := lock.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", lock.Path(), err)
	}
	if pid, live := probe(path); live {
		if held {
			lock.Unlock()
		}
		return nil, fmt.Errorf("a daemon already serves %s (pid %s); stop it first, or set $%s to another path", path, pid, home.EnvSocket)
	}
	if !held {
		return nil, fmt.Errorf("a daemon holds %s but does not answer at %s; it is starting or stopping — wait for it, or stop it first", lock.Path(), path)
	}
	switch err := os.Remove(path); {
	case err == nil:
		log.Info("replaced a stale socket left by a daemon that is gone", "socket", path)
	case !errors.Is(err, fs.ErrNotExist):
		lock.Unlock()
		return nil, fmt.Errorf("remove the stale socket %s: %w", path, err)
	}
	ln, sock, err := bind(path, log)
	if err != nil {
		lock.Unlock()
		return nil, err
	}
	e.ln, e.sock, e.lock = ln, sock, lock
	return e, nil
}

// prepareFolder makes the socket's folder ready. In the home it is the home's
// own, made private as every folder of the home is; elsewhere ($SOT_SOCKET)
// it may be a folder others use, which socketFolder never changes.
func (e *endpoint) prepareFolder() error {
	dir := filepath.Dir(e.path)
	prepare := socketFolder
	if rel, err := filepath.Rel(e.home.Dir, dir); err == nil && filepath.IsLocal(rel) {
		prepare = home.MkdirPrivate
	}
	if err := prepare(dir); err != nil {
		return fmt.Errorf("prepare the socket folder: %w", err)
	}
	return nil
}

// socketLock is the lock beside the socket at path. Its file is never removed:
// a starter holding the old file's descriptor would lock an orphan while a
// third locks the new one.
func socketLock(path string) *flock.Flock {
	return flock.New(path+".lock", flock.SetPermissions(home.FileMode))
}

// bind listens at path, where no file is, with a private socket.
func bind(path string, log *slog.Logger) (*net.UnixListener, os.FileInfo, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	ln.SetUnlinkOnClose(false) // close removes it, once, after the last answer
	if err := privateSocket(path); err != nil {
		ln.Close()
		os.Remove(path)
		return nil, nil, fmt.Errorf("make the socket %s private (0600): %w", path, err)
	}
	sock, err := os.Lstat(path)
	if err != nil {
		log.Warn("the socket file cannot be read back, so a deleted one is not put back", "socket", path, "err", err)
		sock = nil
	}
	return ln, sock, nil
}

// accept is the next connection on the socket the daemon listens on now: the
// run/ watch may have bound a new one in the deleted one's place.
func (e *endpoint) accept() (*net.UnixConn, error) {
	for {
		e.mu.Lock()
		ln := e.ln
		e.mu.Unlock()
		c, err := ln.AcceptUnix()
		if err == nil {
			return c, nil
		}
		e.mu.Lock()
		moved := e.ln != ln && !e.closed
		e.mu.Unlock()
		if !moved {
			return nil, err
		}
	}
}

// stop ends accepting; the socket stays until close.
func (e *endpoint) stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	e.ln.Close()
}

// close removes the socket, unless another daemon's is there now, then lets
// the next daemon take the lock.
func (e *endpoint) close() error {
	e.stop()
	e.mu.Lock()
	defer e.mu.Unlock()
	var errs []error
	if fi, err := os.Lstat(e.path); err == nil && (e.sock == nil || os.SameFile(fi, e.sock)) {
		if err := os.Remove(e.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove the socket %s: %w", e.path, err))
		}
	}
	if err := e.lock.Unlock(); err != nil {
		errs = append(errs, fmt.Errorf("release %s: %w", e.lock.Path(), err))
	}
	return errors.Join(errs...)
}

// probe reports whether something answers at path, and its pid where the OS
// tells a socket's peer ("unknown" where it does not).
func probe(path string) (pid string, live bool) {
	c, err := net.DialTimeout("unix", path, probeWait)
	if err != nil {
		return "", false
	}
	defer c.Close()
	if _, p, err := peerCred(c.(*net.UnixConn)); err == nil {
		return strconv.Itoa(p), true
	}
	return "unknown", true
}
