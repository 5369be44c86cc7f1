package registry

import (
	"encoding/json"
	"fmt"
)

// RowsJSON is the named rows of d that are present, each as Marshal writes
// it, for another process to read with FromRows (the daemon's registry.rows).
func (d *Doc) RowsJSON(names []string) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(names))
	for _, n := range names {
		e, ok := d.Agents[n]
		if !ok {
			continue
		}
		raw, err := e.marshal()
		if err != nil {
			return nil, fmt.Errorf("agent %q: %w", n, err)
		}
		out[n] = raw
	}
	return out, nil
}

// FromRows is the Doc ReadRows answers, made from rows RowsJSON wrote: the
// rows given are present, every other is absent, and it is for reading only.
func FromRows(version int, rows map[string]json.RawMessage) (*Doc, error) {
	d := &Doc{ProtocolVersion: version, Agents: make(map[string]*Entry, len(rows)), versionSeen: true, partial: true}
	for n, raw := range rows {
		if len(raw) == 0 {
			return nil, fmt.Errorf("%w: the row %q came empty", ErrUnreadable, n)
		}
		e, err := parseEntry(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: the row %q is not JSON (%v)", ErrUnreadable, n, err)
		}
		d.Agents[n] = e
	}
	return d, nil
}
