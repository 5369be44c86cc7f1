package registry

import (
	"fmt"
	"maps"

	"github.com/sotcomm/sotd/home"
)

// Snapshot is one read of the registry, parsed whole and indexed, for a
// reader that reads it again after each change (the daemon's cache): read
// from the last one, a write of one row in place (each hook's) costs the
// decoding of that row, not of every row.
type Snapshot struct {
	Doc *Doc // shared by every reader of the snapshot: never changed
	x   *Index
}

// ReadSnapshot reads the registry fresh, with Read's answers, from prev, the
// reader's last snapshot (nil for none). Change says what moved since prev.
func ReadSnapshot(h home.Home, prev *Snapshot) (*Snapshot, Change, error) {
	var last *Index
	if prev != nil {
		last = prev.x
	}
	x, ch, err := ReadIndexSince(h, last)
	if err != nil {
		return nil, Change{}, err
	}
	if !ch.Whole {
		if ch.Row == "" {
			return &Snapshot{prev.Doc, x}, ch, nil
		}
		raw, _ := x.raw(ch.Row)
		if e, err := parseEntry(raw); err == nil {
			return &Snapshot{prev.Doc.with(ch.Row, e), x}, ch, nil
		}
		// A row that does not decode is parse's to tell, in its words.
	}
	d := x.doc
	if d == nil {
		var why string
		if d, why = parse(x.b); why != "" {
			return nil, Change{}, unreadableFile(h.Registry(), why)
		}
	}
	return &Snapshot{d, x}, Change{Whole: true}, nil
}

// with is d with name's row e, d itself unchanged.
func (d *Doc) with(name string, e *Entry) *Doc {
	c := *d
	c.Agents = maps.Clone(d.Agents)
	c.Agents[name] = e
	return &c
}

// unreadableFile is the answer of a read of the registry at path that is
// not a registry, why saying so.
func unreadableFile(path, why string) error {
	return fmt.Errorf("%w: %s %s; if it stays so, move it aside by hand and the next comm command starts an empty one", ErrUnreadable, path, why)
}
