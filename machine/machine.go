// Package machine reads the facts that tell one computer, one boot and one process
// from another: the machine id, the boot id, the pid namespace and a process's start
// tick. Records that must prove a death or name a lock manager are built from them,
// never from a host name, which two machines can share.
package machine

import (
	"strings"
	"sync/atomic"
)

// Unknown is written for a fact that cannot be read; it never equals anything.
const Unknown = "-"

// Same reports whether two recorded facts are known and equal.
func Same(a, b string) bool {
	return Known(a) && a == b
}

// Known says whether a fact was read: it is neither empty nor Unknown.
func Known(fact string) bool { return fact != "" && fact != Unknown }

// localKinds are the file systems whose flock is this machine's kernel's own.
var localKinds = map[string]bool{"ext2": true, "ext3": true, "ext4": true, "xfs": true, "btrfs": true, "zfs": true, "f2fs": true, "tmpfs": true}

// LocalFS says whether a mount of kind fstype is this machine's own disk (or
// memory), whose flock is this kernel's.
func LocalFS(fstype string) bool { return localKinds[fstype] }

func trimmed(b []byte, err error) string {
	if err != nil {
		return Unknown
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return Unknown
	}
	return s
}

// memo keeps read's first known answer for the rest of the process: the machine
// id, the boot id and this process's pid namespace do not change while it runs,
// and one send asks for them in several places (the lock manager, the registry
// lock's holder record). An unknown answer is read again at the next ask, so a
// fact that was missing at start is not taken as missing for good.
func memo(read func() string) func() string {
	var kept atomic.Pointer[string]
	return func() string {
		if p := kept.Load(); p != nil {
			return *p
		}
		s := read()
		if Known(s) {
			kept.Store(&s)
		}
		return s
	}
}
