package ancestry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// OSTable is this OS's process table: /proc.
func OSTable() (Table, error) { return procfs{}, nil }

type procfs struct{}

// Proc reads /proc/<pid>/stat (parent, start, name), cmdline and exe.
func (procfs) Proc(pid int) (Proc, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	buf := make([]byte, 4096) // both reads share it: parseStat keeps copies
	b, err := readSmall(dir+"/stat", buf)
	if err != nil {
		return Proc{}, gone(err)
	}
	st, err := parseStat(b)
	if err != nil {
		return Proc{}, fmt.Errorf("%s/stat: %w", dir, err)
	}
	cmd, err := readSmall(dir+"/cmdline", buf)
	if err != nil {
		return Proc{}, gone(err)
	}
	p := Proc{PID: pid, PPID: st.ppid, Start: st.start, Argv: splitNUL(cmd), Exited: st.exited}
	if len(p.Argv) == 0 {
		// A zombie's or a kernel thread's command line is empty, as is one a
		// process blanked to hide it.
		p.Argv, p.ArgsUnknown = []string{st.comm}, true
	}
	// Another account's exe link cannot be read; argv[0] still names the program.
	if exe, err := os.Readlink(dir + "/exe"); err == nil {
		// An agent that updated itself runs a program file since replaced.
		p.Exe = strings.TrimSuffix(exe, " (deleted)")
	}
	return p, nil
}

// gone marks a read that failed because the process exited.
func gone(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("%w: %w", ErrEnded, err)
	}
	return err
}

// splitNUL splits a command line at its NULs. Trailing NULs are dropped: a
// process that set a shorter title (node's process.title) leaves its old
// arguments' bytes zeroed, which would read as empty arguments.
func splitNUL(b []byte) []string {
	s := strings.TrimRight(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}
