package topology

import (
	"errors"
	"fmt"
	"sort"
)

// Problem is one thing wrong with hosts.toml, at the line it is on.
type Problem struct {
	File string // the path Load read; "hosts.toml" from Parse
	Line int    // 1-based; 0 when it concerns the file as a whole
	Msg  string
}

// Warning is a Problem that does not stop the file loading.
type Warning = Problem

// String is "<file>:<line>: <msg>", the form editors jump to.
func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Msg)
}

func (p *Problem) Error() string { return p.String() }

// problems collects findings; file is set on each as it is taken out.
type problems struct {
	errs, warns []Problem
}

func (ps *problems) fail(line int, format string, a ...any) {
	ps.errs = append(ps.errs, Problem{Line: line, Msg: fmt.Sprintf(format, a...)})
}

func (ps *problems) warn(line int, format string, a ...any) {
	ps.warns = append(ps.warns, Problem{Line: line, Msg: fmt.Sprintf(format, a...)})
}

// result puts findings in line order and names file in each. The error is one
// *Problem, or several joined, so errors.As finds the first.
func (ps *problems) result(file string) ([]Warning, error) {
	inOrder(ps.errs, file)
	inOrder(ps.warns, file)
	var errs []error
	for i := range ps.errs {
		errs = append(errs, &ps.errs[i])
	}
	if len(errs) == 1 {
		return ps.warns, errs[0]
	}
	return ps.warns, errors.Join(errs...)
}

func inOrder(ps []Problem, file string) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Line < ps[j].Line })
	for i := range ps {
		ps[i].File = file
	}
}
