//go:build linux

package crashfs

import (
	"maps"
	"math/rand/v2"
	"slices"
	"time"
)

// Mode picks when a folder entry becomes durable.
type Mode int

const (
	// Strict: a folder's entries are durable only once the folder is fsynced (POSIX).
	Strict Mode = iota
	// Lenient: syncing a file also makes its names durable, as ext4 does for a new file.
	Lenient
)

func (m Mode) String() string {
	if m == Lenient {
		return "lenient"
	}
	return "strict"
}

// node is one file or folder, with its live and its durable state.
type node struct {
	ino   uint64
	dir   bool
	perm  uint32
	mtime time.Time

	data, synced []byte // a file's live bytes and the bytes its last fsync kept

	kids, syncedKids map[string]*node // a folder's live entries and those its last fsync kept
}

// tree is the whole file system: its root and the next inode number.
type tree struct {
	root    *node
	lastIno uint64
	mode    Mode
}

func newTree(mode Mode) *tree {
	t := &tree{mode: mode}
	t.root = t.newNode(true, 0o755)
	return t
}

func (t *tree) newNode(dir bool, perm uint32) *node {
	t.lastIno++
	n := &node{ino: t.lastIno, dir: dir, perm: perm, mtime: time.Now()}
	if dir {
		n.kids, n.syncedKids = map[string]*node{}, map[string]*node{}
	}
	return n
}

// nlink counts the live entries that name n, folders' ".." included.
func (t *tree) nlink(n *node) uint32 {
	if n.dir {
		links := uint32(2)
		for _, k := range n.kids {
			if k.dir {
				links++
			}
		}
		return links
	}
	var links uint32
	t.walk(t.root, func(_ *node, _ string, k *node) {
		if k == n {
			links++
		}
	})
	return links
}

// walk calls fn for every live entry below dir.
func (t *tree) walk(dir *node, fn func(parent *node, name string, kid *node)) {
	for name, k := range dir.kids {
		fn(dir, name, k)
		if k.dir {
			t.walk(k, fn)
		}
	}
}

// sync makes n's live state durable: a file's bytes, a folder's entries. In
// lenient mode a synced file's names, and the folders on their paths, are made
// durable too.
func (t *tree) sync(n *node) {
	if n.dir {
		n.syncedKids = maps.Clone(n.kids)
		return
	}
	n.synced = slices.Clone(n.data)
	if t.mode == Lenient {
		t.keepNames(n)
	}
}

// keepNames makes every live entry that names n durable, and so on up to the root.
func (t *tree) keepNames(n *node) {
	var parents []*node
	t.walk(t.root, func(p *node, name string, k *node) {
		if k == n && p.syncedKids[name] != n {
			p.syncedKids[name] = n
			parents = append(parents, p)
		}
	})
	for _, p := range parents {
		t.keepNames(p)
	}
}

// crashed is the tree a power loss leaves: the durable state of every node
// reachable through durable entries, as a new tree sharing nothing with t. With
// torn non-nil, a file that only grew since its last sync keeps a random prefix
// of its unsynced tail.
func (t *tree) crashed(torn *rand.Rand) *tree {
	c := &tree{mode: t.mode, lastIno: t.lastIno}
	copies := map[*node]*node{}
	var cp func(n *node) *node
	cp = func(n *node) *node {
		if k, ok := copies[n]; ok {
			return k // a second hard link to the same file
		}
		k := &node{ino: n.ino, dir: n.dir, perm: n.perm, mtime: n.mtime}
		copies[n] = k
		if n.dir {
			k.kids, k.syncedKids = map[string]*node{}, map[string]*node{}
			for name, kid := range n.syncedKids {
				k.kids[name] = cp(kid)
				k.syncedKids[name] = k.kids[name]
			}
			return k
		}
		k.synced = slices.Clone(n.synced)
		k.data = slices.Clone(n.synced)
		if torn != nil && len(n.data) > len(n.synced) && string(n.data[:len(n.synced)]) == string(n.synced) {
			k.data = slices.Clone(n.data[:len(n.synced)+torn.IntN(len(n.data)-len(n.synced)+1)])
			k.synced = slices.Clone(k.data)
		}
		return k
	}
	c.root = cp(t.root)
	return c
}
