package reglock

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// Error is a lock that was not taken (or, for Clear, not cleared). Its text is
// the protocol's FAILED sentence; Code (wire.CodeLock*) says which one for a
// program.
type Error struct {
	Code   string
	Path   string
	Holder *Holder // the holder the sentence names; nil when it names none
	msg    string
}

func (e *Error) Error() string { return e.msg }

// blocked is why a step did not free the lock, as a FAILED line tells it.
type blocked struct {
	holder *record // what the lock names; nil when no holder was read
	who    *record // the record that blocks, when it is not the holder
	why    string
	place  place
	byHand bool // no reclaim can clear it
	gone   bool // the lock was gone or unreadable at the last step
}

// released records a step that found the lock gone or unreadable: the holder
// last read stays named, as one that may have been released since.
func (b *blocked) released() {
	b.byHand = false
	b.gone = true
	if b.holder == nil {
		b.why = "its record could not be read, so it may have been released since"
	}
}

func (b blocked) failure(path string, now time.Time) *Error {
	e := &Error{Path: path}
	if b.holder != nil {
		h := b.holder.Holder
		e.Holder = &h
	}
	switch {
	case b.byHand:
		e.Code, e.Holder = wire.CodeLockByHand, nil
		e.msg = fmt.Sprintf("registry lock %s still held (%s old): %s. If its holder is dead, remove %s by hand and retry.", path, age(path, now), b.why, path)
	case b.holder == nil:
		e.Code = wire.CodeLockNotTaken
		e.msg = fmt.Sprintf("registry lock %s was not taken by the deadline: %s. Retry.", path, b.why)
	case b.gone:
		h := b.holder
		e.Code = wire.CodeLockReleased
		e.msg = fmt.Sprintf("registry lock %s was held by %s pid %d start %s when last read (%s); it may have been released since. Retry.", path, h.Name, h.PID, h.Start, b.why)
	default:
		h, who := b.holder, b.holder
		if b.who != nil {
			who = b.who
		}
		e.Code = wire.CodeLockHeld
		e.msg = fmt.Sprintf("registry lock %s is held by %s pid %d start %s (%s old): %s. %s", path, h.Name, h.PID, h.Start, age(path, now), b.why, recovery(b.place, who.Holder, path))
	}
	return e
}

// recovery is the FAILED line's last sentence for the record that blocks.
func recovery(p place, who Holder, path string) string {
	switch p {
	case placeElsewhere:
		return fmt.Sprintf("If it is dead: run any comm command on %s, or, if %s will not run again or a comm command there says it cannot prove a death, remove %s by hand.", who.Name, who.Name, path)
	case placeOtherNS:
		return fmt.Sprintf("If it is dead: run any comm command on %s in its pid namespace, or, if nothing will run there again or a comm command there says it cannot prove a death, remove %s by hand.", who.Name, path)
	case placeNoProof:
		return fmt.Sprintf("No box can prove %s pid %d dead (its record has no proof fields): if it is, remove %s by hand.", who.Name, who.PID, path)
	}
	return fmt.Sprintf("If it is dead, run any comm command on %s.", who.Name)
}

// age is how long ago the lock was last written, by the reader's clock.
func age(path string, now time.Time) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%ds", int64(now.Sub(fi.ModTime()).Round(time.Second)/time.Second))
}

func notTried(path string) *Error {
	return &Error{Code: wire.CodeLockNotTried, Path: path, msg: fmt.Sprintf("registry lock %s was not tried: another thread of this daemon held its turn past the bound", path)}
}

// shown is a line read from disk, fit to quote in a sentence.
func shown(line string) string {
	if line == "" {
		return "empty"
	}
	if len(line) > 80 {
		line = line[:80] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return '?'
		}
		return r
	}, line)
}
