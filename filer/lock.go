package filer

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/sotcomm/sotd/home"
)

// heldLock is an inbox lock this process holds; release lets it go and closes
// its descriptor.
type heldLock struct{ fl *flock.Flock }

func (l heldLock) release() { l.fl.Unlock() }

// lockHeldError: the lock stayed held past the wait. Its text is the sentence the
// person sees; it wraps ErrLockTimeout (a writer) or ErrBusy (a reader).
type lockHeldError struct {
	sentence string
	kind     error
}

func (e *lockHeldError) Error() string { return e.sentence }
func (e *lockHeldError) Unwrap() error { return e.kind }

// lockFault: the lock file could not be opened or flock failed for a reason other
// than another holder. It names flock's code and its own error text.
type lockFault struct {
	path string
	verb string // "opened" or "locked"
	err  error
}

func (e *lockFault) Error() string {
	return fmt.Sprintf("the inbox lock %s could not be %s (%s: %v)", e.path, e.verb, errCode(e.err), bareErr(e.err))
}
func (e *lockFault) Unwrap() error { return e.err }

// bareErr drops os.PathError's "op path:" prefix, which the fault sentence already says.
func bareErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// lock takes the inbox lock at path, exclusive for a writer and shared for a
// reader, waiting at most wait. Every lock descriptor is opened read-write (the
// Linux NFS client refuses a shared lock on one without read access) and never
// through a symlink; the descriptor it locked must be a regular file.
//
// The wait polls with non-blocking tries and never blocks in flock(2): a blocking
// flock cannot be interrupted from Go (the runtime installs its signal handlers
// with SA_RESTART, and closing the descriptor does not wake the waiter), so a bound
// on it would need a goroutine that outlives the call and may take the lock after
// its caller gave up, holding an OS thread while it waits. Under nfs4 the protocol
// asks for tries every 15–25 ms anyway; elsewhere, where a blocked waiter would be
// woken on release, tries 1–2 ms apart come within that much of the wake. Neither
// way is fair: flock has no queue, and a releaser that asks again at once often
// wins. Measured here with sixteen processes appending in tight loops, a bounded
// blocking wait (tried and dropped) timed out as often as these tries do.
// gofrs/flock closes the descriptor a failed try opened, so each try opens the
// path again: a syscall pair here, an OPEN and CLOSE round trip per try on nfs4.
func (f *Filer) lock(path string, exclusive bool, wait time.Duration, held func(time.Duration) *lockHeldError) (heldLock, error) {
	fl := flock.New(path, flock.SetFlag(lockFlags|home.NoFollow), flock.SetPermissions(home.FileMode))
	try := fl.TryRLock
	if exclusive {
		try = fl.TryLock
	}
	deadline := f.now().Add(wait)
	began := time.Now() // the metric is real time, whatever clock f keeps
	for {
		ok, err := try()
		if err != nil {
			return heldLock{}, f.lockError(path, err)
		}
		if ok {
			// Checked on the descriptor just locked: flock opens the path
			// itself, and a file that is not regular is no inbox lock.
			if err := f.Home.CheckRegular(path, fl.Stat); err != nil {
				fl.Unlock()
				return heldLock{}, f.lockError(path, err)
			}
			f.lockWaited(time.Since(began))
			return heldLock{fl: fl}, nil
		}
		left := deadline.Sub(f.now())
		if left <= 0 {
			return heldLock{}, held(wait)
		}
		time.Sleep(min(f.retryDelay(), left))
	}
}

// lockError words a failed try: a symlink or other irregular file names itself
// and its fix; an open that failed (flock's open reports an *fs.PathError, flock
// itself a bare errno) or a flock that failed is a lockFault.
func (f *Filer) lockError(path string, err error) error {
	if errors.Is(err, home.ErrNotRegular) {
		return err
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return &lockFault{path: path, verb: "locked", err: err}
	}
	if err := f.Home.OpenError(path, err); errors.Is(err, home.ErrNotRegular) {
		return err
	}
	return &lockFault{path: path, verb: "opened", err: err}
}

// retryDelay is the jittered pause between two tries, chosen by lock kind.
func (f *Filer) retryDelay() time.Duration {
	if strings.HasPrefix(f.Manager, "nfs4 ") {
		// The NFSv4 client's own retry backoff doubles from 100 ms, so a blocking
		// waiter could sleep past a free lock; the protocol's 15–25 ms tries do not.
		return 15*time.Millisecond + rand.N(10*time.Millisecond)
	}
	return time.Millisecond + rand.N(time.Millisecond)
}

func writerHeld(handle string) func(time.Duration) *lockHeldError {
	return func(wait time.Duration) *lockHeldError {
		return &lockHeldError{
			sentence: fmt.Sprintf("the inbox lock for @%s was held for %s — nothing was appended", handle, seconds(wait)),
			kind:     ErrLockTimeout,
		}
	}
}

func readerHeld(handle string) func(time.Duration) *lockHeldError {
	return func(wait time.Duration) *lockHeldError {
		return &lockHeldError{
			sentence: fmt.Sprintf("the inbox for @%s is being written (its lock was held for %s); the read cursor is unchanged, try again", handle, seconds(wait)),
			kind:     ErrBusy,
		}
	}
}

// seconds writes a wait as the protocol does: "2s", "0.5s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
