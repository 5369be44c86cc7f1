package daemon

import (
	"sync"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// regCache keeps the last registry parse for the daemon's readers that ask
// often: the filing path, the rows' polls, the view and net.list. Each read (a batch's, a tick's) still looks at the registry, as fresh
// as a batch's fsync, but a registry that is the same file with the same size
// and modification time as at the last parse is not read and parsed again
// (home.Stamp). Any failure drops the kept parse and reads as registry.Read
// does. The Doc it answers is shared between its readers and never changed.
type regCache struct {
	h home.Home

	mu   sync.Mutex
	path string     // the registry's
	file home.Stamp // the registry that doc was parsed from; absent when none
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
	file := home.StampOf(c.path)
	if !file.Absent() && file.Same(c.file) {
		return c.doc, nil
	}
	c.file, c.doc = home.Stamp{}, nil
	doc, err := registry.Read(c.h)
	if err != nil {
		return nil, err
	}
	c.file, c.doc = file, doc
	return doc, nil
}
