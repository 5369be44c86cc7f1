package registry

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/sotcomm/sotd/home"
)

// Index is the registry read for many asks of a few rows each (the daemon's
// registry.rows): the file is read and checked as ReadRows checks it, and the
// bytes of each row are found, but no row is decoded. One walk of the file
// costs a fraction of Read's decoding of every row, and a reader that keeps
// its last index walks, after a write of one row in place (Mark's: each
// hook's), only that row (ReadIndexSince).
type Index struct {
	version int
	b       []byte         // the file as read
	names   []string       // the rows of the last .agents, in the file's order
	spans   []span         // where each of names is in b
	slot    map[string]int // each name's place in names: its last, as a decoder takes it
	doc     *Doc           // the file parsed whole, when the walk did not take it
}

// span is where a row's value is in the file: b[start:end].
type span struct{ start, end int }

// Change is what moved in the registry between two reads of it.
type Change struct {
	Whole bool   // the file was walked whole: any row may have changed
	Row   string // else the one row that changed; "" when none did
}

// ReadIndex reads the registry fresh, with ReadRows' answers: every failure
// wraps ErrUnreadable, with parse's reason.
func ReadIndex(h home.Home) (*Index, error) {
	x, _, err := ReadIndexSince(h, nil)
	return x, err
}

// ReadIndexSince is ReadIndex for a reader that kept prev, the index of its
// last read (nil for none). A file that differs from prev's only inside one
// row's value, that value still one JSON value, is the same document but for
// that row, so only that row is walked and Change names it; any other file is
// walked whole (Change.Whole), with ReadIndex's answers. The new file is read
// whole either way: it is the only witness of what changed.
func ReadIndexSince(h home.Home, prev *Index) (*Index, Change, error) {
	path := h.Registry()
	b, err := readBytes(h, path)
	if err != nil {
		return nil, Change{}, err
	}
	if prev != nil {
		if x, row, ok := prev.edit(b); ok {
			return x, Change{Row: row}, nil
		}
	}
	if p, ok := (&picker{b: b, all: true}).walk(); ok {
		x := &Index{b: b, names: p.names, spans: p.spans, slot: make(map[string]int, len(p.names))}
		for i, n := range p.names {
			x.slot[n] = i
		}
		if p.version != nil {
			x.version, _ = version(p.version)
		}
		return x, Change{Whole: true}, nil
	}
	d, why := parse(b)
	if why != "" {
		return nil, Change{}, unreadableFile(path, why)
	}
	return &Index{version: d.ProtocolVersion, b: b, doc: d}, Change{Whole: true}, nil
}

// edit is the index of b, a file that differs from x's inside one row's
// value only: the bytes before and after the change are x's, so the walk of
// them stands, and the row between is walked as the whole walk would walk it.
// False when b is not such a file (then it is walked whole), or x was not
// made by a walk, or names a row twice (a row's change might then be of the
// one a decoder drops).
func (x *Index) edit(b []byte) (*Index, string, bool) {
	if x.doc != nil || len(x.slot) != len(x.names) {
		return nil, "", false
	}
	old := x.b
	if bytes.Equal(old, b) {
		return &Index{version: x.version, b: b, names: x.names, spans: x.spans, slot: x.slot}, "", true
	}
	pre := commonPrefix(old, b)
	suf := commonSuffix(old[pre:], b[pre:])
	// The change is old[pre:len(old)-suf], now b[pre:len(b)-suf]; it must
	// lie within one row's value.
	i := sort.Search(len(x.spans), func(j int) bool { return x.spans[j].start > pre }) - 1
	if i < 0 || len(old)-suf > x.spans[i].end {
		return nil, "", false
	}
	delta := len(b) - len(old)
	at := x.spans[i]
	p := &picker{b: b, i: at.start}
	if !p.value(3) || p.i != at.end+delta {
		return nil, "", false
	}
	spans := make([]span, len(x.spans))
	copy(spans, x.spans[:i])
	spans[i] = span{at.start, at.end + delta}
	for j := i + 1; j < len(spans); j++ {
		spans[j] = span{x.spans[j].start + delta, x.spans[j].end + delta}
	}
	return &Index{version: x.version, b: b, names: x.names, spans: spans, slot: x.slot}, x.names[i], true
}

// commonPrefix is how many leading bytes a and b share.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	// Compared a block at a time: bytes.Equal is memcmp, a loop of bytes is not.
	const block = 256
	i := 0
	for i+block <= n && bytes.Equal(a[i:i+block], b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix is how many trailing bytes a and b share.
func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	const block = 256
	i := 0
	for i+block <= n && bytes.Equal(a[len(a)-i-block:len(a)-i], b[len(b)-i-block:len(b)-i]) {
		i += block
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// Version is the registry's protocol_version; 0 when it has none.
func (x *Index) Version() int { return x.version }

// raw is name's row as the file holds it.
func (x *Index) raw(name string) (json.RawMessage, bool) {
	i, ok := x.slot[name]
	if !ok {
		return nil, false
	}
	s := x.spans[i]
	return x.b[s.start:s.end:s.end], true
}

// Rows is the named rows that are present, each as the file holds it, for a
// reader to decode with FromRows, which reads them as ReadRows does.
func (x *Index) Rows(names []string) (map[string]json.RawMessage, error) {
	if x.doc != nil {
		return x.doc.RowsJSON(names)
	}
	out := make(map[string]json.RawMessage, len(names))
	for _, n := range names {
		if raw, ok := x.raw(n); ok {
			out[n] = raw
		}
	}
	return out, nil
}
