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
//
// Reads made while a look runs share the one look that starts after it ends:
// each read is answered by a look that began after the read was asked for, and a
// burst of reads makes two looks, not one each.
type regCache struct {
	h home.Home

	mu      sync.Mutex
	running *regLook // the look under way; nil when none is
	next    *regLook // the look that starts when running ends, for the reads asked meanwhile

	// Touched only by the look that runs.
	path  string      // the registry's
	file  os.FileInfo // the registry that doc was parsed from; nil when none
	doc   *registry.Doc
	looks int // looks made, for tests
}

// regLook is one look at the registry and what it answered.
type regLook struct {
	done chan struct{} // closed when doc and err are set
	doc  *registry.Doc
	err  error
}

func (c *regCache) read() (*registry.Doc, error) {
	c.mu.Lock()
	if c.running == nil {
		l := &regLook{done: make(chan struct{})}
		c.running = l
		c.mu.Unlock()
		c.run(l)
		return l.doc, l.err
	}
	// The look under way may have begun before this read was asked for: the
	// next one answers it, run by the first read that waits for it.
	l, lead := c.next, c.next == nil
	if lead {
		l = &regLook{done: make(chan struct{})}
		c.next = l
	}
	before := c.running
	c.mu.Unlock()
	if !lead {
		<-l.done
		return l.doc, l.err
	}
	<-before.done
	c.mu.Lock()
	c.running, c.next = l, nil
	c.mu.Unlock()
	c.run(l)
	return l.doc, l.err
}

// run makes look l, the running one, and hands on: to the next look's reads
// when any wait, else to the next read.
func (c *regCache) run(l *regLook) {
	l.doc, l.err = c.parse()
	c.mu.Lock()
	if c.next == nil {
		c.running = nil
	}
	c.mu.Unlock()
	close(l.done)
}

// parse is the registry as it is now: the kept parse while it is the same file.
func (c *regCache) parse() (*registry.Doc, error) {
	c.looks++
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
