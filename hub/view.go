package hub

import (
	"maps"
	"slices"
	"sync"

	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// Bounds on what one view entry or row may carry, so a linked box cannot grow
// the hub's view (and every guest's copy) past MaxHandles small entries and
// MaxRows small rows.
const (
	maxViewText      = registry.MaxText      // bytes of repo, summary, state, each
	maxViewExpertise = registry.MaxExpertise // expertise words
	// MaxRows bounds the rows one linked box may publish.
	MaxRows = 1024
)

// View is the hub's merged network view: its own home's entries and rows and
// those each linked box publishes. A box's entry is taken, and kept, only while
// that box's link holds its handle in the directory (a pinned box is trusted
// only for the handles it holds), and under that box's own name. A box's row
// is taken only under that box's own name, and kept while its link is the
// box's current one; the handle it names shows only while that link holds it.
type View struct {
	r *Router

	mu      sync.Mutex
	own     map[string]wire.ViewEntry
	ownRows map[string]wire.ViewRow
	guests  map[Peer]*published
}

// published is what one link told of its box.
type published struct {
	entries map[string]wire.ViewEntry // by handle
	rows    map[string]wire.ViewRow   // by Key
}

func newView(r *Router) *View {
	return &View{r: r, own: map[string]wire.ViewEntry{}, ownRows: map[string]wire.ViewRow{}, guests: map[Peer]*published{}}
}

// View is the router's merged network view.
func (r *Router) View() *View { return r.view }

// SetOwn replaces the hub's own home's entries and rows (rows by Key).
func (v *View) SetOwn(es map[string]wire.ViewEntry, rows map[string]wire.ViewRow) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.own, v.ownRows = maps.Clone(es), maps.Clone(rows)
}

// Apply takes one view event of link p and returns how many entries and rows
// it refused: entries for a handle p does not hold or with a state that is not
// one of the protocol's words (none is fine: a session that never said one),
// rows under another box's name, and rows past MaxRows. Events of a link that has ended are dropped.
func (v *View) Apply(p Peer, ev wire.LinkView) (refused int) {
	select {
	case <-p.Done():
		return 0
	default:
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	pub := v.guests[p]
	if pub == nil || ev.Full {
		pub = &published{entries: map[string]wire.ViewEntry{}, rows: map[string]wire.ViewRow{}}
		v.guests[p] = pub
	}
	for _, h := range ev.Removed {
		delete(pub.entries, h)
	}
	for _, e := range ev.Entries {
		if v.r.holder(e.Handle) != p || e.State != "" && !registry.IsState(e.State) {
			refused++
			continue
		}
		e.Box = p.Box()
		pub.entries[e.Handle] = Clip(e)
	}
	for _, k := range ev.RowsRemoved {
		delete(pub.rows, k)
	}
	for _, row := range ev.Rows {
		_, had := pub.rows[row.Key()]
		if row.Box != p.Box() || (!had && len(pub.rows) >= MaxRows) {
			refused++
			continue
		}
		pub.rows[row.Key()] = clipRow(row)
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
	for p, pub := range v.guests {
		for h, e := range pub.entries {
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

// Rows is the merged view's rows, by Key, but for those of link skip (nil
// skips none) and, with withOwn false, the hub's own. A linked box's rows count
// only while its link is the box's current one, and a row's handle shows only
// while that link holds it.
func (v *View) Rows(skip Peer, withOwn bool) map[string]wire.ViewRow {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := map[string]wire.ViewRow{}
	if withOwn {
		maps.Copy(out, v.ownRows)
	}
	for p, pub := range v.guests {
		if p == skip || !v.r.linked(p) {
			continue
		}
		for k, row := range pub.rows {
			if row.Handle != "" && v.r.holder(row.Handle) != p {
				row.Handle = ""
			}
			out[k] = row
		}
	}
	return out
}

// linked says whether p is its box's current link.
func (r *Router) linked(p Peer) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.live(p)
}

// clipRow bounds a row's text.
func clipRow(row wire.ViewRow) wire.ViewRow {
	row.ID, row.Label, row.Phase, row.Agent = cut(row.ID), cut(row.Label), cut(row.Phase), cut(row.Agent)
	row.Handle, row.Since = cut(row.Handle), cut(row.Since)
	return row
}

// Clip bounds an entry's free text: what the hub keeps of a linked box's
// entry, and what a box publishes of its own, so an entry an older writer
// left past the bounds in its registry still fits a view event.
func Clip(e wire.ViewEntry) wire.ViewEntry {
	e.Repo, e.State, e.Summary = cut(e.Repo), cut(e.State), cut(e.Summary)
	e.LastSeen, e.StatusAt = cut(e.LastSeen), cut(e.StatusAt)
	e.Expertise = slices.Clone(e.Expertise[:min(len(e.Expertise), maxViewExpertise)]) // its own: the words are cut in place
	for i, w := range e.Expertise {
		e.Expertise[i] = cut(w)
	}
	return e
}

func cut(s string) string { return registry.Cut(s, maxViewText) }
