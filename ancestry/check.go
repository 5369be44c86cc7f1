package ancestry

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/machine"
)

// Verdict is the check's answer for one process.
type Verdict struct {
	OK     bool
	Row    string // the row the process names, "" for none
	Reason string // why, as a sentence for a person
	// Runner is the row whose runner ended the walk, "" when it ended at the top.
	Runner string
	// Agents are the agent layers counted, the lowest first; a node host and its
	// paired native child are one, the host.
	Agents []Proc
	// Chain is what the walk read: the checked process first, up to the runner or
	// the top.
	Chain []Proc
}

// Checker judges processes against one process table and one box's runners.
type Checker struct {
	Table   Table
	Runners Runners
}

// ForHome is a Checker on this OS's process table (read fresh: on Windows it is a
// snapshot) and the runners recorded on host in h.
func ForHome(h home.Home, host string) (Checker, error) {
	t, err := OSTable()
	if err != nil {
		return Checker{}, err
	}
	r, err := LoadRunners(h, host)
	if err != nil {
		return Checker{}, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	return Checker{Table: t, Runners: r}, nil
}

// Check judges pid, which names row ("" for none). A judged refusal is a
// Verdict that is not OK; an ancestry that cannot be read in full is refused with
// an error wrapping ErrUnreadable (and a Verdict that says so).
func (c Checker) Check(pid int, row string) (Verdict, error) {
	v := Verdict{Row: row}
	chain, err := walk(c.Table, pid, func(p Proc) bool { return c.Runners.RowOf(p) != "" })
	v.Chain = chain
	if err != nil {
		v.Reason = unreadable(err)
		return v, err
	}
	last := chain[len(chain)-1]
	v.Runner = c.Runners.RowOf(last)
	if row != "" && v.Runner != row {
		v.Reason = c.notInRow(pid, row, last, v.Runner)
		return v, nil
	}
	v.Agents, err = layers(chain)
	if err != nil {
		v.Reason = unreadable(err)
		return v, err
	}
	bound := "the top of its process tree"
	if v.Runner != "" {
		bound = "the runner of row " + v.Runner
	}
	switch len(v.Agents) {
	case 0:
		v.Reason = fmt.Sprintf("no agent between pid %d and %s", pid, bound)
	case 1:
		v.Reason = fmt.Sprintf("1 agent between pid %d and %s (%s)", pid, bound, names(v.Agents))
	default:
		v.Reason = fmt.Sprintf("%d agents lie between pid %d and %s (%s); an agent started inside a session (claude -p, codex exec), and anything it starts, has no comm identity: start it as its own row to give it one",
			len(v.Agents), pid, bound, names(v.Agents))
		return v, nil
	}
	v.OK = true
	return v, nil
}

// notInRow says why pid, which names row, did not reach that row's runner: the
// walk ended at another row's runner or at the top.
func (c Checker) notInRow(pid int, row string, last Proc, other string) string {
	if other != "" {
		return fmt.Sprintf("pid %d names row %s but runs inside another row's runner, %s of row %s; a process acts only as the row it runs in",
			pid, row, describe(last), other)
	}
	run, ok := c.Runners[row]
	if !ok {
		return fmt.Sprintf("pid %d names row %s, but this box has no record of that row's runner: the row does not run here, or its daemon has not recorded it; run comm commands from inside a running row", pid, row)
	}
	return fmt.Sprintf("pid %d names row %s, but its ancestry ends at %s without reaching the row's runner (pid %d): it was reparented away from row %s or never ran inside it; run comm commands from inside the row",
		pid, row, describe(last), run.PID, row)
}

func unreadable(err error) string {
	return fmt.Sprintf("%v; it is refused, not trusted", err)
}

func names(ps []Proc) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = describe(p)
	}
	return strings.Join(s, " under ")
}

// ErrRefused is wrapped by every refusal Allowed returns; one for an ancestry
// that could not be read wraps ErrUnreadable too.
var ErrRefused = errors.New("this process has no comm identity")

type refusal struct {
	reason string
	cause  error // nil for a judged refusal
}

func (r *refusal) Error() string { return ErrRefused.Error() + ": " + r.reason }

func (r *refusal) Unwrap() []error {
	if r.cause == nil {
		return []error{ErrRefused}
	}
	return []error{ErrRefused, r.cause}
}

// Allowed checks the current process, which names row ("" for none), against
// the runners recorded on host in h. A verb that reads mail, sends, joins or
// stamps calls it first and, on an error, does nothing and shows the error.
func Allowed(h home.Home, host, row string) error {
	_, err := Judge(h, host, row)
	return err
}

// Judge is Allowed with the verdict it passed: its Agents name the agent
// process the session runs under, if any, which keys the session's identity.
func Judge(h home.Home, host, row string) (Verdict, error) {
	c, err := ForHome(h, host)
	if err != nil {
		return Verdict{}, &refusal{reason: unreadable(err), cause: err}
	}
	v, err := c.Check(os.Getpid(), row)
	if err != nil || !v.OK {
		return v, &refusal{reason: v.Reason, cause: err}
	}
	return v, nil
}

// Liveness is what a process record proves about the process it names.
type Liveness int

const (
	// Unproved: the process could not be read, or a start cannot be compared
	// (unknown on this OS); it may be alive.
	Unproved Liveness = iota
	Running           // pid is there and started at the recorded start
	Gone              // pid is not there, or is another process that reused it
)

// Still says whether pid is still the process that started at start.
func Still(pid int, start string) Liveness {
	t, err := OSTable()
	if err != nil {
		return Unproved
	}
	p, err := t.Proc(pid)
	switch {
	case errors.Is(err, ErrEnded), err == nil && p.Exited:
		return Gone
	case err != nil, start == "", start == machine.Unknown, p.Start == "", p.Start == machine.Unknown:
		return Unproved
	case p.Start == start:
		return Running
	}
	return Gone
}
