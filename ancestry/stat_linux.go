package ancestry

import (
	"errors"
	"strconv"
	"strings"
)

type stat struct {
	comm  string
	ppid  int
	start string
	// exited is a zombie's (state Z or X): it has ended, and its parent has not
	// reaped it yet.
	exited bool
}

// parseStat reads the name, parent (field 4) and start tick (field 22) of a
// /proc/<pid>/stat line. The name is in parentheses and may itself hold spaces
// and parentheses, so the fields are counted from the last ')'.
func parseStat(b []byte) (stat, error) {
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return stat{}, errors.New("no (name) in the stat line")
	}
	f := strings.Fields(s[end+1:])
	// f[0] is field 3 (state): field 4 is f[1], field 22 is f[19].
	if len(f) < 20 {
		return stat{}, errors.New("the stat line ends before its start time")
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil || ppid < 0 {
		return stat{}, errors.New("the stat line's parent is not a pid")
	}
	if _, err := strconv.ParseUint(f[19], 10, 64); err != nil {
		return stat{}, errors.New("the stat line's start time is not a number")
	}
	return stat{comm: s[open+1 : end], ppid: ppid, start: f[19], exited: f[0] == "Z" || f[0] == "X"}, nil
}
