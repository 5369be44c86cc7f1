// Package machine reads the facts that tell one computer, one boot and one process
// from another: the machine id, the boot id, the pid namespace and a process's start
// tick. Records that must prove a death or name a lock manager are built from them,
// never from a host name, which two machines can share.
package machine

import "strings"

// Unknown is written for a fact that cannot be read; it never equals anything.
const Unknown = "-"

// Same reports whether two recorded facts are known and equal.
func Same(a, b string) bool {
	return a != "" && a != Unknown && a == b
}

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
