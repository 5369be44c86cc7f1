package reglock

import (
	"fmt"
	"strconv"
	"strings"
)

// mount is one line of /proc/self/mountinfo, the fields the vouch needs.
type mount struct {
	id, parent string
	point      string
	fstype     string
	// options: the per-mount and the superblock options, comma-joined.
	options string
}

// freshTypes are the filesystems whose reads the protocol counts as fresh; nfs
// and nfs4 only without nocto, which skips the close-to-open revalidation.
var freshTypes = map[string]bool{
	"ext2": true, "ext3": true, "ext4": true, "xfs": true, "btrfs": true,
	"zfs": true, "f2fs": true, "tmpfs": true, "nfs": true, "nfs4": true,
}

func (m mount) vouch() error {
	if !freshTypes[m.fstype] {
		return fmt.Errorf("the comm home's filesystem (%s) does not prove a fresh read", m.fstype)
	}
	for _, o := range strings.Split(m.options, ",") {
		if o == "nocto" {
			return fmt.Errorf("the comm home is mounted nocto, so no read of it is proved fresh")
		}
	}
	return nil
}

// mountOf finds the mount path is on: the deepest mount point that contains
// it, and where several are stacked on that point, the one on top (no other
// mount at the point names it as parent), as findmnt -T does.
func mountOf(mountinfo, path string) (mount, bool) {
	var stack []mount
	depth := -1
	for _, line := range strings.Split(mountinfo, "\n") {
		m, ok := parseMount(line)
		if !ok || !under(path, m.point) {
			continue
		}
		switch d := strings.Count(strings.TrimSuffix(m.point, "/"), "/"); {
		case d > depth:
			depth, stack = d, []mount{m}
		case d == depth:
			stack = append(stack, m)
		}
	}
	if len(stack) == 0 {
		return mount{}, false
	}
	top := stack[len(stack)-1]
	for _, m := range stack {
		covered := false
		for _, o := range stack {
			covered = covered || o.parent == m.id
		}
		if !covered {
			top = m
		}
	}
	return top, true
}

// parseMount reads "id parent maj:min root point opts [optional...] - fstype source superopts".
func parseMount(line string) (mount, bool) {
	pre, post, ok := strings.Cut(line, " - ")
	if !ok {
		return mount{}, false
	}
	a, b := strings.Fields(pre), strings.Fields(post)
	if len(a) < 6 || len(b) < 3 {
		return mount{}, false
	}
	return mount{id: a[0], parent: a[1], point: unescape(a[4]), fstype: b[0], options: a[5] + "," + b[2]}, true
}

// under reports whether path is point or inside it.
func under(path, point string) bool {
	if point == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == point || strings.HasPrefix(path, point+"/")
}

// unescape undoes mountinfo's octal escapes (\040 for a space, and so on).
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
