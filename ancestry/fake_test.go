package ancestry

import (
	"fmt"
	"strconv"
	"strings"
)

// fakeTable is a synthetic process table: procs by pid, and errors some pids
// answer instead.
type fakeTable struct {
	procs map[int]Proc
	errs  map[int]error
}

func (t fakeTable) Proc(pid int) (Proc, error) {
	if err, ok := t.errs[pid]; ok {
		return Proc{}, err
	}
	p, ok := t.procs[pid]
	if !ok {
		return Proc{}, fmt.Errorf("%w: no process %d", ErrEnded, pid)
	}
	return p, nil
}

// line builds one branch of a tree from the top down: the first spec is the
// top (its parent is pid 0), each next one the child of the one before, and the
// last is the process checked, whose pid line returns. A spec is the command
// line, words split at spaces; "[ws-x] " before it records it as row ws-x's
// runner, and "? " before it makes its arguments unknown (Argv is the name).
// Pids count up from first; every process started one tick after its parent.
func line(first int, specs ...string) (fakeTable, Runners, int) {
	t := fakeTable{procs: map[int]Proc{}, errs: map[int]error{}}
	r := Runners{}
	pid := first
	for i, s := range specs {
		pid = first + i
		p := Proc{PID: pid, PPID: pid - 1, Start: strconv.Itoa(1000 + i)}
		if i == 0 {
			p.PPID = 0
		}
		if rest, ok := strings.CutPrefix(s, "["); ok {
			row, cmd, _ := strings.Cut(rest, "] ")
			r[row] = Runner{PID: pid, Start: p.Start}
			s = cmd
		}
		if rest, ok := strings.CutPrefix(s, "? "); ok {
			p.ArgsUnknown = true
			s = rest
		}
		p.Argv = strings.Split(s, " ")
		t.procs[pid] = p
	}
	return t, r, pid
}

// merge adds other's processes to t.
func (t fakeTable) merge(other fakeTable) fakeTable {
	for pid, p := range other.procs {
		t.procs[pid] = p
	}
	return t
}
