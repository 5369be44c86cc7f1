package ancestry

import (
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"
)

// OSTable is this OS's process table: the kern.proc.pid and kern.procargs2
// sysctls.
func OSTable() (Table, error) { return sysctlTable{}, nil }

type sysctlTable struct{}

func (sysctlTable) Proc(pid int) (Proc, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		// The sysctl answers an empty record for a pid that is not there.
		if unix.Kill(pid, 0) == unix.ESRCH {
			return Proc{}, fmt.Errorf("%w: no process %d", ErrEnded, pid)
		}
		return Proc{}, fmt.Errorf("kern.proc.pid %d: %w", pid, err)
	}
	if int(kp.Proc.P_pid) != pid {
		return Proc{}, fmt.Errorf("%w: no process %d", ErrEnded, pid)
	}
	st := kp.Proc.P_starttime
	p := Proc{
		PID:   pid,
		PPID:  int(kp.Eproc.Ppid),
		Start: strconv.FormatInt(st.Sec*1_000_000+int64(st.Usec), 10),
	}
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		// Another account's process, or a zombie: the kernel keeps its
		// arguments to itself, and its short name is all there is.
		p.Argv, p.ArgsUnknown = []string{unix.ByteSliceToString(kp.Proc.P_comm[:])}, true
		return p, nil
	}
	p.Exe, p.Argv, err = parseProcArgs(b)
	if err != nil {
		return Proc{}, fmt.Errorf("kern.procargs2 of process %d: %w", pid, err)
	}
	if len(p.Argv) == 0 {
		p.Argv, p.ArgsUnknown = []string{unix.ByteSliceToString(kp.Proc.P_comm[:])}, true
	}
	return p, nil
}
