package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
)

// Doc is the whole registry. Top-level fields sotd does not know survive in Extra.
type Doc struct {
	ProtocolVersion int
	Agents          map[string]*Entry
	Extra           map[string]json.RawMessage

	versionSeen bool // protocol_version was in the file, so it stays even if zero
	partial     bool // ReadRows': some rows only, never to be written
}

// VersionMismatch reports a registry not stamped with this build's protocol
// version (a missing stamp included), which join warns about loudly.
func (d *Doc) VersionMismatch() bool { return d.ProtocolVersion != ProtocolVersion }

// Parse reads a registry strictly: exactly one JSON document, an object, whose
// .agents is an object. Anything else is ErrUnreadable with the reason. A row that
// is not an object is kept verbatim and reads as a row with no fields.
func Parse(b []byte) (*Doc, error) {
	d, why := parse(b)
	if why != "" {
		return nil, fmt.Errorf("%w: the text %s", ErrUnreadable, why)
	}
	return d, nil
}

// parse answers the document, or why it is unreadable as a predicate ("is empty").
func parse(b []byte) (*Doc, string) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, "is empty"
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var top, more json.RawMessage
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Sprintf("is not JSON (%v)", err)
	}
	switch err := dec.Decode(&more); {
	case err == nil:
		return nil, "holds more than one JSON document"
	case !errors.Is(err, io.EOF):
		return nil, fmt.Sprintf("is not JSON after its first document (%v)", err)
	}
	if top[0] != '{' {
		return nil, "is not a JSON object"
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(top, &m); err != nil {
		return nil, fmt.Sprintf("is not JSON (%v)", err)
	}
	ag, ok := m["agents"]
	if !ok {
		return nil, "has no .agents"
	}
	var am map[string]json.RawMessage
	if ag[0] != '{' || json.Unmarshal(ag, &am) != nil {
		return nil, "has an .agents that is not an object"
	}
	delete(m, "agents")
	d := &Doc{Agents: make(map[string]*Entry, len(am))}
	for name, raw := range am {
		e, err := parseEntry(raw)
		if err != nil {
			return nil, fmt.Sprintf("has a row %q that is not JSON (%v)", name, err)
		}
		d.Agents[name] = e
	}
	if v, ok := m["protocol_version"]; ok {
		if d.ProtocolVersion, d.versionSeen = version(v); d.versionSeen {
			delete(m, "protocol_version")
		}
	}
	x, err := compactAll(m)
	if err != nil {
		return nil, fmt.Sprintf("is not JSON (%v)", err)
	}
	d.Extra = x
	return d, ""
}

// version reads a protocol_version: only an integer is ours (seen); 1.5, 1e0 or
// "1" stay in Extra as they were.
func version(v json.RawMessage) (int, bool) {
	var n int
	if (v[0] == '-' || v[0] >= '0' && v[0] <= '9') && json.Unmarshal(v, &n) == nil {
		return n, true
	}
	return 0, false
}

// Marshal writes the registry one key a line, two-space indent, one trailing
// newline: protocol_version, agents by name, then the kept top-level fields by
// name; within a row the protocol's key order, then kept fields by name. Values
// inside a key (expertise, another client's objects) are written compact.
func (d *Doc) Marshal() ([]byte, error) {
	if d.partial {
		return nil, errors.New("a registry read for some rows (ReadRows) cannot be written: it would drop the others")
	}
	var ms []member
	written := map[string]bool{"agents": true}
	if d.ProtocolVersion != 0 || d.versionSeen {
		v, err := encode(d.ProtocolVersion)
		if err != nil {
			return nil, err
		}
		ms = append(ms, member{"protocol_version", v})
		written["protocol_version"] = true
	}
	rows := make([]member, 0, len(d.Agents))
	for _, name := range sortedKeys(d.Agents) {
		e := d.Agents[name]
		if e == nil {
			return nil, fmt.Errorf("agent %q has no row", name)
		}
		v, err := e.marshal()
		if err != nil {
			return nil, fmt.Errorf("agent %q: %w", name, err)
		}
		rows = append(rows, member{name, v})
	}
	agents, err := object(rows, "  ")
	if err != nil {
		return nil, err
	}
	ms = append(ms, member{"agents", agents})
	top, err := object(appendExtra(ms, d.Extra, written), "")
	if err != nil {
		return nil, err
	}
	return append(top, '\n'), nil
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
