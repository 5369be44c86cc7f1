package daemon

import (
	"os"
	"sync"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// regCache keeps the filing path's last registry parse. Each batch still looks at
// the registry just before its append, as fresh as its fsync, but a registry that
// is the same file with the same size and modification time as at the last parse
// is not read and parsed again: every writer replaces it by rename, so a write is
// a new file. The look opens the file (an NFS client revalidates its attributes
// at an open; a bare stat may answer from its cache) and reads only its
// attributes. Any failure drops the kept parse and reads as registry.Read does.
// The Doc it answers is shared between batches and never changed.
type regCache struct {
	h home.Home

	mu   sync.Mutex
	path string      // the registry's
	file os.FileInfo // the registry that doc was parsed from; nil when none
	doc  *registry.Doc
}

func (c *regCache) read() (*registry.Doc, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.path == "" {
		c.path = c.h.Registry()
	}
	// The look comes before the read: a registry replaced between the two is
	// kept with the older look's attributes, so the next batch reads it again.
	file := c.look()
	if file != nil && c.file != nil && os.SameFile(file, c.file) && file.Size() == c.file.Size() && file.ModTime().Equal(c.file.ModTime()) {
		return c.doc, nil
	}
	c.file, c.doc = nil, nil
	doc, err := registry.Read(c.h)
	if err != nil {
		return nil, err
	}
	c.file, c.doc = file, doc
	return doc, nil
}

// look is the registry's attributes, read on a descriptor opened for it as
// home.OpenFile opens one, never through a symlink, with the one fstat that
// both says it is a regular file and gives them; nil when it cannot be opened
// or is none (registry.Read then says why).
func (c *regCache) look() os.FileInfo {
	f, err := os.OpenFile(c.path, os.O_RDONLY|home.NoFollow, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	return fi
}
