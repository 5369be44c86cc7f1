package registry

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry/reglock"
)

// The protocol's FAILED reasons of a registry write (registry_replace).
const (
	reasonNotWritten = "the registry could not be read or updated, so nothing was written"
	reasonFlush      = "the registry update could not be flushed (%v), so nothing was written"
	reasonRename     = "the registry update could not be renamed into place (%v), so nothing was written"
)

// UpdateError is an update that wrote nothing. Its text is the protocol's FAILED
// reason, exactly; the cause is kept behind it for logs and errors.Is (an
// unreadable registry's cause wraps ErrUnreadable).
type UpdateError struct {
	Reason string
	Err    error
}

func (e *UpdateError) Error() string { return e.Reason }
func (e *UpdateError) Unwrap() error { return e.Err }

// ErrAfterWrite is wrapped when the new registry is in place but a step after the
// rename failed (flushing the folder, releasing the lock): every reader sees the
// update, so the caller reports it done, with the warning.
var ErrAfterWrite = errors.New("the registry update landed")

// Ruled is the deadline of a ruled write (join, leave, spawn, despawn, status):
// $SOT_LOCK_WAIT_SECS, else RuledWait.
func Ruled() time.Duration { return reglock.RuledDeadline() }

// Update takes the registry lock (bounded by wait), reads the registry fresh under
// it, applies fn and replaces the file. fn returning ErrSkip writes nothing and
// Update returns nil; any other error from fn is returned as it is. The registry
// must exist (Ensure): a missing or unreadable one is never written.
func Update(h home.Home, wait time.Duration, fn func(*Doc) error) error {
	return UpdateWith(h, reglock.Options{Deadline: wait}, fn)
}

// UpdateWith is Update with the lock's options (host, clock, sleep, log) given. A
// lock that cannot be taken is returned as reglock's *Error, whose text is the
// lock's FAILED reason.
func UpdateWith(h home.Home, opt reglock.Options, fn func(*Doc) error) error {
	return locked(h, opt, func() error { return replace(h, fn) })
}

// locked runs write under the registry lock.
func locked(h home.Home, opt reglock.Options, write func() error) error {
	lk, err := reglock.Take(h.RegistryLock(), opt)
	if err != nil {
		return err
	}
	err = write()
	if rerr := lk.Release(); rerr != nil {
		if err == nil {
			return fmt.Errorf("%w, but %w", ErrAfterWrite, rerr)
		}
		if opt.Log != nil {
			opt.Log.Warn("registry lock not released", "path", h.RegistryLock(), "err", rerr)
		}
	}
	return err
}

// replace is registry_replace: read fresh, apply, write registry.json.tmp (0600),
// check it is one document with an object .agents, flush it, rename it over
// registry.json, flush the folder. It runs under the lock, so the tmp name is one.
func replace(h home.Home, fn func(*Doc) error) error {
	path := h.Registry()
	old, err := readBytes(h, path)
	if err != nil {
		return &UpdateError{reasonNotWritten, err}
	}
	return replaceFrom(h, old, fn)
}

// replaceFrom is replace of the registry read as old, under the lock.
func replaceFrom(h home.Home, old []byte, fn func(*Doc) error) error {
	path := h.Registry()
	d, why := parse(old)
	if why != "" {
		return &UpdateError{reasonNotWritten, fmt.Errorf("%w: %s %s", ErrUnreadable, path, why)}
	}
	if err := fn(d); err != nil {
		if errors.Is(err, ErrSkip) {
			return nil
		}
		return err
	}
	body, err := d.Marshal()
	if err != nil {
		return &UpdateError{reasonNotWritten, err}
	}
	return publish(h, old, body)
}

// publish writes body over the registry read as old, under the lock: the tmp
// file, checked and flushed, renamed into place, the folder flushed.
func publish(h home.Home, old, body []byte) error {
	path := h.Registry()
	if bytes.Equal(body, old) {
		return nil // already so: a rename would only make other hosts' handles stale
	}
	tmp := path + ".tmp"
	if err := writeTmp(tmp, body); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := fsys.rename(tmp, path); err != nil {
		os.Remove(tmp)
		return &UpdateError{fmt.Sprintf(reasonRename, err), err}
	}
	if err := home.SyncDir(h.Dir); err != nil {
		return fmt.Errorf("%w, but %v, so it may not survive a crash", ErrAfterWrite, err)
	}
	return nil
}

// writeTmp writes the tmp a rename will publish, and checks what landed on disk.
func writeTmp(tmp string, body []byte) error {
	// A crashed writer's tmp may remain; we hold the lock, so it is nobody's.
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &UpdateError{reasonNotWritten, err}
	}
	if err := home.WriteNew(tmp, body, flushed); err != nil {
		if fe := (*flushError)(nil); errors.As(err, &fe) {
			return &UpdateError{fmt.Sprintf(reasonFlush, fe.err), err}
		}
		return &UpdateError{reasonNotWritten, err}
	}
	back, err := os.ReadFile(tmp)
	if err != nil {
		return &UpdateError{reasonNotWritten, err}
	}
	if why := check(back); why != "" {
		return &UpdateError{reasonNotWritten, fmt.Errorf("the written %s %s", tmp, why)}
	}
	return nil
}
