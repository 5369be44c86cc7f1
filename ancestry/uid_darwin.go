package ancestry

import "golang.org/x/sys/unix"

// UID is the account pid runs as: its effective uid.
func UID(pid int) (int, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return 0, err
	}
	return int(kp.Eproc.Ucred.Uid), nil
}
