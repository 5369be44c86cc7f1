package crashfs

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// FS is a mounted crashfs.
type FS struct {
	dir string

	mu     sync.Mutex // every operation holds it: the model is one tree
	tree   *tree
	server *fuse.Server
}

// Mount serves an empty crashfs at dir, an existing empty folder, until the test
// ends. It skips the test where FUSE is missing and fails it where the mount
// fails. Make dir (t.TempDir) before calling Mount, so the folder is removed
// after the unmount.
func Mount(t testing.TB, dir string, mode Mode) *FS {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("crashfs needs FUSE, and /dev/fuse is missing (%v): run as root with /dev/fuse (a container needs --device /dev/fuse --cap-add SYS_ADMIN)", err)
	}
	f := &FS{dir: dir, tree: newTree(mode)}
	if err := f.mount(); err != nil {
		t.Fatalf("mount crashfs at %s: %v (it mounts /dev/fuse itself as root, else through fusermount3 from the fuse3 package)", dir, err)
	}
	t.Cleanup(func() {
		if err := f.unmount(); err != nil {
			t.Errorf("unmount crashfs at %s: %v", dir, err)
		}
	})
	return f
}

// Crash is a power loss: what was not made durable is gone, and the mount
// serves what was (see the package doc). Every process using the mount must be
// dead first (SIGKILL, then wait), as a power loss stops them; torn, when not
// nil, keeps a random part of each file's unsynced appended tail.
func (f *FS) Crash(torn *rand.Rand) error {
	f.mu.Lock()
	f.tree = f.tree.crashed(torn)
	f.mu.Unlock()
	// An operation still in flight on the old mount changes the old tree only:
	// the crashed tree shares no node with it.
	if err := f.unmount(); err != nil {
		return err
	}
	return f.mount()
}

func (f *FS) mount() error {
	zero := time.Duration(0)
	// No caching of entries or attributes: every lseek(SEEK_END) and stat asks
	// the model, so no process sees a size another's append has outdated.
	srv, err := gofs.Mount(f.dir, &fsNode{fs: f, t: f.tree, n: f.tree.root}, &gofs.Options{
		EntryTimeout:    &zero,
		AttrTimeout:     &zero,
		NegativeTimeout: &zero,
		MountOptions: fuse.MountOptions{
			DirectMount:   true,
			FsName:        "crashfs",
			Name:          "crashfs",
			DisableXAttrs: true,
			MaxBackground: 64,
			// Locks are not enabled: flock and fcntl locks stay the kernel's
			// own, shared by every process on this machine as on a local disk.
		},
	})
	if err != nil {
		return err
	}
	f.server = srv
	return nil
}

// unmount detaches the mount, lazily when something still holds it open (a
// process that outlived its kill), so no mount is left behind.
func (f *FS) unmount() error {
	if f.server == nil {
		return nil
	}
	srv := f.server
	f.server = nil
	if err := srv.Unmount(); err == nil {
		return nil
	}
	if err := syscall.Unmount(f.dir, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}

// fsNode is one node as the kernel sees it. It keeps the tree it belongs to: an
// operation that reaches an old mount after a crash changes only the old tree.
type fsNode struct {
	gofs.Inode
	fs *FS
	t  *tree
	n  *node
}

// handle is an open file: append says every write goes to the end.
type handle struct{ append bool }

var (
	_ gofs.NodeLookuper  = (*fsNode)(nil)
	_ gofs.NodeGetattrer = (*fsNode)(nil)
	_ gofs.NodeSetattrer = (*fsNode)(nil)
	_ gofs.NodeReaddirer = (*fsNode)(nil)
	_ gofs.NodeMkdirer   = (*fsNode)(nil)
	_ gofs.NodeCreater   = (*fsNode)(nil)
	_ gofs.NodeOpener    = (*fsNode)(nil)
	_ gofs.NodeReader    = (*fsNode)(nil)
	_ gofs.NodeWriter    = (*fsNode)(nil)
	_ gofs.NodeFsyncer   = (*fsNode)(nil)
	_ gofs.NodeUnlinker  = (*fsNode)(nil)
	_ gofs.NodeRmdirer   = (*fsNode)(nil)
	_ gofs.NodeRenamer   = (*fsNode)(nil)
	_ gofs.NodeLinker    = (*fsNode)(nil)
)

func (d *fsNode) lock() func() {
	d.fs.mu.Lock()
	return d.fs.mu.Unlock
}

func (d *fsNode) attr(n *node, out *fuse.Attr) {
	out.Ino = n.ino
	out.Mode = n.perm
	if n.dir {
		out.Mode |= syscall.S_IFDIR
	} else {
		out.Mode |= syscall.S_IFREG
		out.Size = uint64(len(n.data))
		out.Blocks = (out.Size + 511) / 512
	}
	out.Nlink = d.t.nlink(n)
	out.SetTimes(nil, &n.mtime, &n.mtime)
	out.Blksize = 4096
}

// child wraps n as an inode the kernel may hold.
func (d *fsNode) child(ctx context.Context, n *node, out *fuse.EntryOut) *gofs.Inode {
	d.attr(n, &out.Attr)
	mode := uint32(syscall.S_IFREG)
	if n.dir {
		mode = syscall.S_IFDIR
	}
	return d.NewInode(ctx, &fsNode{fs: d.fs, t: d.t, n: n}, gofs.StableAttr{Mode: mode, Ino: n.ino})
}

func (d *fsNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	defer d.lock()()
	k, ok := d.n.kids[name]
	if !ok {
		return nil, syscall.ENOENT
	}
	return d.child(ctx, k, out), 0
}

func (d *fsNode) Getattr(ctx context.Context, _ gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	defer d.lock()()
	d.attr(d.n, &out.Attr)
	return 0
}

func (d *fsNode) Setattr(ctx context.Context, _ gofs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	defer d.lock()()
	if m, ok := in.GetMode(); ok {
		d.n.perm = m & 0o7777
	}
	if size, ok := in.GetSize(); ok {
		if d.n.dir {
			return syscall.EISDIR
		}
		d.n.data = resize(d.n.data, int(size))
		d.n.mtime = time.Now()
	}
	if mt, ok := in.GetMTime(); ok {
		d.n.mtime = mt
	}
	d.attr(d.n, &out.Attr)
	return 0
}

// resize cuts b to size or pads it with zeros. A file's live bytes never share
// an array with its synced ones (sync and crashed copy them), so b is the
// file's own to change.
func resize(b []byte, size int) []byte {
	if size <= len(b) {
		return b[:size]
	}
	return append(b, make([]byte, size-len(b))...)
}

func (d *fsNode) Readdir(ctx context.Context) (gofs.DirStream, syscall.Errno) {
	defer d.lock()()
	names := make([]string, 0, len(d.n.kids))
	for name := range d.n.kids {
		names = append(names, name)
	}
	sort.Strings(names)
	entries := make([]fuse.DirEntry, 0, len(names))
	for _, name := range names {
		k := d.n.kids[name]
		mode := uint32(syscall.S_IFREG)
		if k.dir {
			mode = syscall.S_IFDIR
		}
		entries = append(entries, fuse.DirEntry{Name: name, Mode: mode, Ino: k.ino})
	}
	return gofs.NewListDirStream(entries), 0
}

func (d *fsNode) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	defer d.lock()()
	if _, ok := d.n.kids[name]; ok {
		return nil, syscall.EEXIST
	}
	k := d.t.newNode(true, mode&0o7777)
	d.n.kids[name] = k
	d.n.mtime = time.Now()
	return d.child(ctx, k, out), 0
}

func (d *fsNode) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*gofs.Inode, gofs.FileHandle, uint32, syscall.Errno) {
	defer d.lock()()
	k, ok := d.n.kids[name]
	switch {
	case ok && flags&syscall.O_EXCL != 0:
		return nil, nil, 0, syscall.EEXIST
	case ok && k.dir:
		return nil, nil, 0, syscall.EISDIR
	case ok && flags&syscall.O_TRUNC != 0:
		k.data = nil
	case !ok:
		k = d.t.newNode(false, mode&0o7777)
		d.n.kids[name] = k
		d.n.mtime = time.Now()
	}
	return d.child(ctx, k, out), openHandle(flags), fuse.FOPEN_DIRECT_IO, 0
}

// openHandle is a handle for flags. Reads and writes bypass the page cache
// (FOPEN_DIRECT_IO), so the model sees every one as the process made it.
func openHandle(flags uint32) *handle { return &handle{append: flags&syscall.O_APPEND != 0} }

func (d *fsNode) Open(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	defer d.lock()()
	if flags&syscall.O_TRUNC != 0 && !d.n.dir {
		d.n.data = nil
	}
	return openHandle(flags), fuse.FOPEN_DIRECT_IO, 0
}

func (d *fsNode) Read(ctx context.Context, _ gofs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	defer d.lock()()
	if off >= int64(len(d.n.data)) {
		return fuse.ReadResultData(nil), 0
	}
	n := copy(dest, d.n.data[off:])
	return fuse.ReadResultData(dest[:n]), 0
}

func (d *fsNode) Write(ctx context.Context, fh gofs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	defer d.lock()()
	if h, ok := fh.(*handle); ok && h.append {
		off = int64(len(d.n.data))
	}
	if end := int(off) + len(data); end > len(d.n.data) {
		d.n.data = resize(d.n.data, end)
	}
	copy(d.n.data[off:], data)
	d.n.mtime = time.Now()
	return uint32(len(data)), 0
}

// Fsync serves fsync and fdatasync of a file and of a folder alike.
func (d *fsNode) Fsync(ctx context.Context, _ gofs.FileHandle, flags uint32) syscall.Errno {
	defer d.lock()()
	d.t.sync(d.n)
	return 0
}

func (d *fsNode) Unlink(ctx context.Context, name string) syscall.Errno {
	defer d.lock()()
	k, ok := d.n.kids[name]
	switch {
	case !ok:
		return syscall.ENOENT
	case k.dir:
		return syscall.EISDIR
	}
	delete(d.n.kids, name)
	d.n.mtime = time.Now()
	return 0
}

func (d *fsNode) Rmdir(ctx context.Context, name string) syscall.Errno {
	defer d.lock()()
	k, ok := d.n.kids[name]
	switch {
	case !ok:
		return syscall.ENOENT
	case !k.dir:
		return syscall.ENOTDIR
	case len(k.kids) > 0:
		return syscall.ENOTEMPTY
	}
	delete(d.n.kids, name)
	d.n.mtime = time.Now()
	return 0
}

func (d *fsNode) Rename(ctx context.Context, name string, newParent gofs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	defer d.lock()()
	to, ok := newParent.(*fsNode)
	if !ok || flags&^uint32(unix.RENAME_NOREPLACE) != 0 {
		return syscall.ENOTSUP
	}
	k, ok := d.n.kids[name]
	if !ok {
		return syscall.ENOENT
	}
	if old, ok := to.n.kids[newName]; ok {
		switch {
		case old == k:
			return 0
		case flags&unix.RENAME_NOREPLACE != 0:
			return syscall.EEXIST
		case old.dir && !k.dir:
			return syscall.EISDIR
		case !old.dir && k.dir:
			return syscall.ENOTDIR
		case old.dir && len(old.kids) > 0:
			return syscall.ENOTEMPTY
		}
	}
	delete(d.n.kids, name)
	to.n.kids[newName] = k
	d.n.mtime, to.n.mtime = time.Now(), time.Now()
	return 0
}

func (d *fsNode) Link(ctx context.Context, target gofs.InodeEmbedder, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	defer d.lock()()
	t, ok := target.(*fsNode)
	if !ok {
		return nil, syscall.EXDEV
	}
	if t.n.dir {
		return nil, syscall.EPERM
	}
	if _, ok := d.n.kids[name]; ok {
		return nil, syscall.EEXIST
	}
	d.n.kids[name] = t.n
	d.n.mtime = time.Now()
	return d.child(ctx, t.n, out), 0
}
