package filer

import "sync"

// maxWindows bounds how many inboxes' id windows a Filer keeps. A window holds at
// most the ids of 1 MiB of lines (a few thousand for lines of ordinary length).
const maxWindows = 64

// idWindows keeps a Filer's idWindow per inbox path. A window is taken out while
// its append runs and put back after, so the mutex is held only for the map; the
// inbox lock keeps two appends of one inbox from running at once.
type idWindows struct {
	mu   sync.Mutex
	m    map[string]*idWindow
	uses uint64
}

// take removes and returns the window for path, an empty one when none is kept.
func (c *idWindows) take(path string) *idWindow {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.m[path]
	if !ok {
		return &idWindow{}
	}
	delete(c.m, path)
	return w
}

// put keeps w for path, evicting the least recently used window past maxWindows.
func (c *idWindows) put(path string, w *idWindow) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*idWindow{}
	}
	c.uses++
	w.used = c.uses
	c.m[path] = w
	if len(c.m) <= maxWindows {
		return
	}
	var oldest string
	for p, o := range c.m {
		if oldest == "" || o.used < c.m[oldest].used {
			oldest = p
		}
	}
	delete(c.m, oldest)
}
