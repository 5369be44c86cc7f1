package machine

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// ID is the host UUID, read once per process.
func ID() string { return id() }

var id = memo(func() string {
	s, err := unix.Sysctl("kern.uuid")
	return trimmed([]byte(s), err)
})

// Boot is the boot session UUID, read once per process.
func Boot() string { return boot() }

var boot = memo(func() string {
	s, err := unix.Sysctl("kern.bootsessionuuid")
	return trimmed([]byte(s), err)
})

// PIDNamespace is "darwin": macOS has one pid space.
func PIDNamespace() string { return "darwin" }

// Start is pid's start in whole seconds since the epoch.
func Start(pid int) string {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Proc.P_pid != int32(pid) {
		return Unknown
	}
	return strconv.FormatInt(kp.Proc.P_starttime.Sec, 10)
}

// ProvesDeath reports whether this OS can read the facts a proof of death needs.
const ProvesDeath = true
