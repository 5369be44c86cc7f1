package machine

import (
	"os"
	"strconv"
	"strings"
)

// ID is /etc/machine-id (falling back to the D-Bus copy), read once per process.
func ID() string { return id() }

var id = memo(func() string {
	if id := trimmed(os.ReadFile("/etc/machine-id")); id != Unknown {
		return id
	}
	return trimmed(os.ReadFile("/var/lib/dbus/machine-id"))
})

// Boot is the kernel's boot_id, read once per process.
func Boot() string { return boot() }

var boot = memo(func() string { return trimmed(os.ReadFile("/proc/sys/kernel/random/boot_id")) })

// PIDNamespace is this process's pid namespace, as /proc/self/ns/pid names it,
// read once per process.
func PIDNamespace() string { return pidNS() }

var pidNS = memo(func() string {
	l, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return Unknown
	}
	return strings.TrimSuffix(strings.TrimPrefix(l, "pid:["), "]")
})

// Start is pid's start tick (field 22 of /proc/<pid>/stat), Unknown when the
// process is gone or unreadable.
func Start(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Unknown
	}
	// The command name (field 2) may hold spaces and parentheses; count from the
	// last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return Unknown
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state), so field 22 is f[19].
	if len(f) < 20 {
		return Unknown
	}
	return f[19]
}

// ProvesDeath reports whether this OS can read the facts a proof of death needs.
const ProvesDeath = true
