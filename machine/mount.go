package machine

import (
	"strconv"
	"strings"
)

// Mount is one line of a mountinfo table (proc(5)), the fields that tell which
// file system, and so which lock manager and which caching, serves a path.
type Mount struct {
	ID, Parent string // the mount's id and its parent's: how stacked mounts are ordered
	Point      string // where it is mounted, escapes undone
	FSType     string
	Source     string // for NFS, <server>:<export>
	Options    string // the per-mount and the superblock options, comma-joined
}

// ParseMountinfo reads mountinfo text: ID, parent, major:minor, root, mount
// point, per-mount options, optional fields ended by "-", then type, source and
// the superblock's options. Lines it cannot read are skipped. It is plain text
// work so that every OS can build and test it; only Linux has the table.
func ParseMountinfo(text string) []Mount {
	var ms []Mount
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if sep < 0 || sep+3 > len(f) {
			continue
		}
		m := Mount{ID: f[0], Parent: f[1], Point: unescape(f[4]), FSType: f[sep+1], Source: unescape(f[sep+2]), Options: f[5]}
		if sep+3 < len(f) {
			m.Options += "," + f[sep+3]
		}
		ms = append(ms, m)
	}
	return ms
}

// unescape undoes the kernel's octal escapes (\040 for a space, \134 for a
// backslash) in a mountinfo field.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// MountOf finds the mount an absolute, symlink-free path is on, as findmnt -T
// does: the deepest mount point that is path or one of its parents, and where
// several are stacked on that point, the one on top, which no other mount there
// names as parent. The table's order does not decide it: a move or a
// propagated mount can list the top one first.
func MountOf(ms []Mount, path string) (Mount, bool) {
	var stack []Mount
	for _, m := range ms {
		if !contains(m.Point, path) {
			continue
		}
		// Every point that contains path is a prefix of it, so longer is deeper.
		switch {
		case len(stack) == 0 || len(m.Point) > len(stack[0].Point):
			stack = []Mount{m}
		case m.Point == stack[0].Point:
			stack = append(stack, m)
		}
	}
	if len(stack) == 0 {
		return Mount{}, false
	}
	for _, m := range stack {
		if !covered(stack, m) {
			return m, true
		}
	}
	// Every one names another as parent, which a kernel table never does.
	return stack[len(stack)-1], true
}

func covered(stack []Mount, m Mount) bool {
	for _, o := range stack {
		if o.Parent == m.ID {
			return true
		}
	}
	return false
}

// contains reports whether path is point or inside it; /mnt does not contain
// /mntx.
func contains(point, path string) bool {
	if point == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == point || strings.HasPrefix(path, point+"/")
}

// HasOption reports whether opt is one of m's options, whole: nocto is not
// found in noctox.
func (m Mount) HasOption(opt string) bool {
	for _, o := range strings.Split(m.Options, ",") {
		if o == opt {
			return true
		}
	}
	return false
}
