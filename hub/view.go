package hub

import (
	"maps"
	"sync"

	"github.com/sotcomm/sotd/wire"
)

// Bounds on what one view entry may carry, so a linked box cannot grow the
// hub's view (and every guest's copy) past MaxHandles small entries.
const (
	maxViewText      = 512 // bytes of repo, summary, state, each
	maxViewExpertise = 32  // expertise words
)

// View is the hub's merged network view: its own home's entries and those each
// linked box publishes. A box's entry is taken, and kept, only while that box's
// link holds its handle in the directory (a pinned box is trusted only for the
// handles it holds), and under that box's own name.
type View struct {
	r *Router

	mu     sync.Mutex
	own    map[string]wire.ViewEntry
	guests map[Peer]map[string]wire.ViewEntry
}

func newView(r *Router) *View {
	return &View{r: r, own: map[string]wire.ViewEntry{}, guests: map[Peer]map[string]wire.ViewEntry{}}
}

// View is the router's merged network view.
func (r *Router) View() *View { return r.view }

// SetOwn replaces the hub's own home's entries.
func (v *View) SetOwn(es map[string]wire.ViewEntry) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.own = maps.Clone(es)
}

// Apply takes one view event of link p and returns how many entries it
// refused: those for a handle p does not hold. Events of a link that has
// ended are dropped.
func (v *View) Apply(p Peer, ev wire.LinkView) (refused int) {
	select {
	case <-p.Done():
		return 0
	default:
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	set := v.guests[p]
	if set == nil || ev.Full {
		set = map[string]wire.ViewEntry{}
		v.guests[p] = set
	}
	for _, h := range ev.Removed {
		delete(set, h)
	}
	for _, e := range ev.Entries {
		if v.r.holder(e.Handle) != p {
			refused++
			continue
		}
		e.Box = p.Box()
		set[e.Handle] = clip(e)
	}
	return refused
}

// drop forgets what link p published (it ended).
func (v *View) drop(p Peer) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.guests, p)
}

// Entries is the merged view, by handle, but for the handles link skip holds
// (nil skips none) and, with withOwn false, the hub's own. A linked box's entry
// counts only while its link holds the handle now; one a link holds outranks
// the hub's own home's entry for the same handle.
func (v *View) Entries(skip Peer, withOwn bool) map[string]wire.ViewEntry {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := map[string]wire.ViewEntry{}
	if withOwn {
		maps.Copy(out, v.own)
	}
	for p, set := range v.guests {
		for h, e := range set {
			switch q := v.r.holder(h); {
			case q != p:
			case p == skip:
				delete(out, h)
			default:
				out[h] = e
			}
		}
	}
	return out
}

// clip bounds an entry's free text.
func clip(e wire.ViewEntry) wire.ViewEntry {
	e.Repo, e.State, e.Summary = cut(e.Repo), cut(e.State), cut(e.Summary)
	e.LastSeen, e.StatusAt = cut(e.LastSeen), cut(e.StatusAt)
	if len(e.Expertise) > maxViewExpertise {
		e.Expertise = e.Expertise[:maxViewExpertise]
	}
	for i, w := range e.Expertise {
		e.Expertise[i] = cut(w)
	}
	return e
}

func cut(s string) string {
	if len(s) <= maxViewText {
		return s
	}
	// Back off to a rune boundary, so the JSON stays valid UTF-8.
	n := maxViewText
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
