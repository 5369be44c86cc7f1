package regcache

import (
	"slices"
	"sync"

	"github.com/sotcomm/sotd/registry"
)

// View is one parse of the registry with the lookups the daemon's ticks make
// of it, found once a parse: which handles each row holds. A tick then costs
// the rows it looks at, not a walk of every entry of a large registry.
type View struct {
	Doc *registry.Doc // never changed

	bound map[row][]string    // the handles bound to each row, by name
	held  map[string][]string // each host's handles bound to a row on it, by name

	// live orders Doc's entries for Live: made at the first ask, and then
	// carried from view to view through each one-row change, so a list costs
	// the live entries and a write costs one row's move.
	mu   sync.Mutex
	live *registry.LiveIndex
}

// row is a row as the registry names it: its box and its id.
type row struct{ host, id string }

// Bound is the handles the registry binds to row id on host, by name; the
// slice is the view's, not to be changed.
func (v *View) Bound(host, id string) []string { return v.bound[row{host, id}] }

// Held is the handles the registry binds to any row on host, by name: the
// rows host runs and those that ended holding a handle. The slice is the
// view's, not to be changed.
func (v *View) Held(host string) []string { return v.held[host] }

// Live is the names of Doc's entries live at c (registry.Live), newest
// first.
func (v *View) Live(c registry.Cutoff) []string {
	v.mu.Lock()
	if v.live == nil {
		v.live = registry.IndexLive(v.Doc.Agents)
	}
	x := v.live
	v.mu.Unlock()
	return x.Live(c)
}

// next is the view of doc, read after v's with ch between them: the lookups
// are found again only when a row's binding may have moved.
func (v *View) next(doc *registry.Doc, ch registry.Change) *View {
	if v == nil || ch.Whole {
		return viewOf(doc)
	}
	old, now := v.Doc.Agents[ch.Row], doc.Agents[ch.Row]
	v.mu.Lock()
	live := v.live
	v.mu.Unlock()
	if live != nil && ch.Row != "" {
		live = live.With(ch.Row, old, now)
	}
	if ch.Row == "" || old != nil && now != nil && old.Host == now.Host && old.WorkspaceID == now.WorkspaceID {
		return &View{Doc: doc, bound: v.bound, held: v.held, live: live}
	}
	w := viewOf(doc)
	w.live = live
	return w
}

// viewOf finds doc's lookups.
func viewOf(doc *registry.Doc) *View {
	v := &View{Doc: doc, bound: map[row][]string{}, held: map[string][]string{}}
	for name, e := range doc.Agents {
		if e.WorkspaceID == "" {
			continue
		}
		k := row{e.Host, e.WorkspaceID}
		v.bound[k] = append(v.bound[k], name)
		v.held[e.Host] = append(v.held[e.Host], name)
	}
	for _, hs := range v.bound {
		slices.Sort(hs)
	}
	for _, hs := range v.held {
		slices.Sort(hs)
	}
	return v
}
