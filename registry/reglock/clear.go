package reglock

import (
	"fmt"
	"path/filepath"
)

// Clear is `sotd lock-clear`: the reclaim path at once, with no deadline. It
// removes the lock only when this box proves its holder dead, through the same
// marker, settle and re-read as a waiter, never by a bare remove, which would
// let a pending reclaimer remove the next holder's lock. A holder it cannot
// prove dead may be alive, so its refusal (an *Error) names the recovery the
// FAILED line names. With no lock it says the lock is free, with a nil error.
func Clear(path, host string) (string, error) {
	return clearLock(path, Options{Host: host})
}

func clearLock(path string, opt Options) (string, error) {
	opt = opt.withDefaults()
	turn := turnFor(path)
	if !turn.TryLock() {
		return "", notTried(path)
	}
	defer turn.Unlock()
	w := &waiter{path: path, opt: opt, me: newSelf(filepath.Dir(path), opt.Host)}
	s := w.step()
	switch s.outcome {
	case stepRemoved:
		return fmt.Sprintf("cleared registry lock %s, held by %s pid %d start %s: %s", path, s.holder.Name, s.holder.PID, s.holder.Start, s.proof), nil
	case stepGone:
		return fmt.Sprintf("registry lock %s is free: it was released during the clear", path), nil
	case stepReleased:
		if !exists(path) {
			return fmt.Sprintf("registry lock %s is free", path), nil
		}
		return "", blocked{why: fmt.Sprintf("its record could not be read (%v)", cause(s.err)), byHand: true}.failure(path, opt.Now())
	}
	return "", s.block.failure(path, opt.Now())
}
