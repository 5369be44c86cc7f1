package registry

import (
	"encoding/json"
	"fmt"

	"github.com/sotcomm/sotd/home"
)

// Index is the registry read for many asks of a few rows each (the daemon's
// registry.rows): the file is read and checked as ReadRows checks it, and the
// bytes of each row are found, but no row is decoded. One walk of the file
// costs a fraction of Read's decoding of every row, so a daemon can make one
// each time the file changes however often it changes.
type Index struct {
	version int
	rows    map[string]json.RawMessage // each row as the file holds it
	doc     *Doc                       // the file parsed whole, when the walk did not take it
}

// ReadIndex reads the registry fresh, with ReadRows' answers: every failure
// wraps ErrUnreadable, with parse's reason.
func ReadIndex(h home.Home) (*Index, error) {
	path := h.Registry()
	b, err := readBytes(h, path)
	if err != nil {
		return nil, err
	}
	if p, ok := (&picker{b: b, all: true}).walk(); ok {
		x := &Index{rows: p.rows}
		if p.version != nil {
			x.version, _ = version(p.version)
		}
		return x, nil
	}
	d, why := parse(b)
	if why != "" {
		return nil, fmt.Errorf("%w: %s %s; if it stays so, move it aside by hand and the next comm command starts an empty one", ErrUnreadable, path, why)
	}
	return &Index{version: d.ProtocolVersion, doc: d}, nil
}

// Version is the registry's protocol_version; 0 when it has none.
func (x *Index) Version() int { return x.version }

// Rows is the named rows that are present, each as the file holds it, for a
// reader to decode with FromRows, which reads them as ReadRows does.
func (x *Index) Rows(names []string) (map[string]json.RawMessage, error) {
	if x.doc != nil {
		return x.doc.RowsJSON(names)
	}
	out := make(map[string]json.RawMessage, len(names))
	for _, n := range names {
		if raw, ok := x.rows[n]; ok {
			out[n] = raw
		}
	}
	return out, nil
}
