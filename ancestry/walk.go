package ancestry

import (
	"errors"
	"fmt"
	"strconv"
)

// MaxWalk is the most processes a walk reads, the checked one included; an
// ancestry longer than this is refused.
const MaxWalk = 64

// Proc is one process as the walk read it.
type Proc struct {
	PID, PPID int
	// Argv is the command line. When ArgsUnknown, it is only the program's name.
	Argv []string
	// Exe is the program file, "" when it cannot be read.
	Exe string
	// Start is when the process started, a decimal count in the OS's own unit
	// (Linux: clock ticks since boot; macOS: microseconds since the epoch;
	// Windows: 100 ns since 1601), or machine.Unknown.
	Start string
	// ArgsUnknown is set when the command line could not be read.
	ArgsUnknown bool
	// Exited is set for a process that has ended and is not reaped yet (a
	// zombie), where the OS says so (Linux).
	Exited bool
}

// Table reads one process at a time.
type Table interface {
	// Proc reads pid. An error wrapping ErrEnded says the process is not there to
	// read (it exited, or on Windows it cannot be opened), which ends a walk at
	// the top above it; any other error is an unreadable ancestry.
	Proc(pid int) (Proc, error)
}

var (
	// ErrEnded is wrapped by a Table's answer for a process that is not there.
	ErrEnded = errors.New("process not there")
	// ErrUnreadable is wrapped by every walk that could not read the ancestry in full.
	ErrUnreadable = errors.New("ancestry unreadable")
)

// Walk reads pid and its ancestors up to the top of its tree, the process itself
// first, from this OS's process table.
func Walk(pid int) ([]Proc, error) {
	t, err := OSTable()
	if err != nil {
		return nil, err
	}
	return walk(t, pid, nil)
}

// walk reads pid and its ancestors until stop accepts one (which is kept as the
// last) or the top. The top is a process with no parent, or one whose parent is
// not there or started after it (a reused pid: its real parent has exited).
func walk(t Table, pid int, stop func(Proc) bool) ([]Proc, error) {
	p, err := t.Proc(pid)
	if err != nil {
		return nil, fmt.Errorf("%w: read process %d: %w", ErrUnreadable, pid, err)
	}
	chain := []Proc{p}
	for {
		if stop != nil && stop(p) {
			return chain, nil
		}
		if p.PPID <= 0 || p.PPID == p.PID {
			return chain, nil
		}
		if len(chain) == MaxWalk {
			return chain, fmt.Errorf("%w: the walk from pid %d passed %d processes without reaching the top", ErrUnreadable, pid, MaxWalk)
		}
		parent, err := t.Proc(p.PPID)
		if errors.Is(err, ErrEnded) {
			return chain, nil
		}
		if err != nil {
			return chain, fmt.Errorf("%w: read ancestor %d of pid %d: %w", ErrUnreadable, p.PPID, pid, err)
		}
		if startedAfter(parent, p) {
			return chain, nil
		}
		chain = append(chain, parent)
		p = parent
	}
}

// startedAfter reports whether parent started after child, which no real
// parent does: the pid was reused after the child's parent exited.
func startedAfter(parent, child Proc) bool {
	a, err1 := strconv.ParseUint(parent.Start, 10, 64)
	b, err2 := strconv.ParseUint(child.Start, 10, 64)
	return err1 == nil && err2 == nil && a > b
}
