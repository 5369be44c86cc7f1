package reglock

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// Options is how one Take waits.
type Options struct {
	Host     string              // the record's name field; "" = home.SelfHost()
	Deadline time.Duration       // Ruled, about 1 s for a touch, 0 for the heartbeat (one try, still reclaims)
	Now      func() time.Time    // nil = time.Now, whose monotonic reading the deadline uses
	Sleep    func(time.Duration) // nil = time.Sleep; the polls and the reclaim's settle
	Log      *slog.Logger        // nil = discard
}

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = time.Sleep
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// Lock is the registry lock, held, with this process's turn for its path.
type Lock struct {
	path     string
	rec      string
	proves   bool
	turn     *sync.Mutex
	released atomic.Bool
}

// retaken is why a retake right after a reclaim failed.
const retaken = "another process took it as soon as a dead holder's lock was removed"

// Take takes the lock at path, waiting until opt.Deadline for this process's
// turn and the lock together. There is always one try and its reclaim step; a
// lock this wait removes is retaken at once, even past the deadline. The error
// is an *Error whose text is the protocol's FAILED sentence.
func Take(path string, opt Options) (*Lock, error) {
	opt = opt.withDefaults()
	w := &waiter{path: path, opt: opt, deadline: opt.Now().Add(opt.Deadline), bounded: true}
	turn := turnFor(path)
	for !turn.TryLock() {
		if w.over() {
			return nil, notTried(path)
		}
		w.nap()
	}
	w.me = newSelf(filepath.Dir(path), opt.Host)
	if err := w.take(); err != nil {
		turn.Unlock()
		return nil, err
	}
	return &Lock{path: path, rec: w.me.line, proves: w.me.proves, turn: turn}, nil
}

func (w *waiter) take() error {
	last := blocked{why: "it was released just now"}
	first, retook := true, false
	for {
		took, err := link(w.path, w.path, w.me.line)
		if err != nil {
			return &Error{Code: wire.CodeLockNoLink, Path: w.path, msg: fmt.Sprintf("registry lock %s cannot be taken: %v", w.path, err)}
		}
		if took {
			return nil
		}
		// A failed retake: the FAILED line names whoever took it.
		if retook {
			retook = false
			if r, st, _ := fresh(w.path, w.me.proves); st == readRecord {
				last.holder = &r
			}
		}
		if !first && w.over() {
			return last.failure(w.path, w.opt.Now())
		}
		first = false
		s := w.step()
		switch s.outcome {
		case stepRemoved, stepGone:
			last, retook = blocked{why: retaken}, true
			continue
		case stepReleased:
			last.released()
		default:
			last = s.block
		}
		w.nap()
		if w.over() {
			return last.failure(w.path, w.opt.Now())
		}
	}
}

// Release removes the lock file and gives up the turn. It removes the file only
// while it still names this process: a lock removed by hand while held and
// taken again is the new holder's, and is left alone. A second call does nothing.
func (l *Lock) Release() error {
	if !l.released.CompareAndSwap(false, true) {
		return nil
	}
	// The turn goes only after the removal, so a goroutine that gets it never
	// sees a lock a live sibling is about to remove.
	defer l.turn.Unlock()
	r, st, err := fresh(l.path, l.proves)
	switch {
	case st == readRecord && r.line != l.rec:
		return fmt.Errorf("registry lock %s names %s at release, not this process (%s): it was removed while held and taken again, so it is left to its holder", l.path, r.line, l.rec)
	case st == readFailed && errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("registry lock %s was already gone at release: something removed it while this process held it", l.path)
	}
	if err := os.Remove(l.path); err != nil {
		if l.proves {
			return fmt.Errorf("release registry lock %s: %w; the next take by this process reclaims it", l.path, err)
		}
		return fmt.Errorf("release registry lock %s: %w; remove it by hand", l.path, err)
	}
	return nil
}
