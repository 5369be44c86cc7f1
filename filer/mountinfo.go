package filer

import (
	"path/filepath"
	"strconv"
	"strings"
)

// mount is one line of /proc/self/mountinfo, the fields the manager needs.
type mount struct {
	point  string // where it is mounted
	fstype string
	source string // for NFS, <server>:<export>
	opts   string // per-mount and per-superblock options, comma-separated
}

// parseMountinfo reads mountinfo text (proc(5)): ID, parent, major:minor, root,
// mount point, options, optional fields ending in "-", then type, source and the
// superblock's options. Lines it cannot read are skipped.
func parseMountinfo(text string) []mount {
	var ms []mount
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
		m := mount{point: unescapeMount(f[4]), fstype: f[sep+1], source: unescapeMount(f[sep+2]), opts: f[5]}
		if sep+3 < len(f) {
			m.opts += "," + f[sep+3]
		}
		ms = append(ms, m)
	}
	return ms
}

// unescapeMount undoes the kernel's octal escapes (\040 for a space, \134 for a
// backslash) in a mountinfo field.
func unescapeMount(s string) string {
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

// mountOf is the mount that serves path: the longest mount point that is path or
// one of its parents, the last one listed where mounts are stacked on one point.
func mountOf(ms []mount, path string) (mount, bool) {
	var best mount
	found := false
	for _, m := range ms {
		if !under(path, m.point) {
			continue
		}
		if !found || len(m.point) >= len(best.point) {
			best, found = m, true
		}
	}
	return best, found
}

func under(path, point string) bool {
	point = filepath.Clean(point)
	return point == "/" || path == point || strings.HasPrefix(path, point+"/")
}

// localKinds are the file systems whose flock is this machine's kernel's own.
var localKinds = map[string]bool{"ext2": true, "ext3": true, "ext4": true, "xfs": true, "btrfs": true, "zfs": true, "f2fs": true, "tmpfs": true}

// managerOf names the lock manager of path's mount, for a machine with id.
func managerOf(ms []mount, path, id string) string {
	if !knownID(id) {
		return "none"
	}
	m, ok := mountOf(ms, path)
	switch {
	case !ok:
	case m.fstype == "nfs4" && hasOpt(m.opts, "local_lock=none"):
		return "nfs4 " + m.source
	case localKinds[m.fstype]:
		return "local " + id
	}
	return "none@" + id
}

func hasOpt(opts, want string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}
