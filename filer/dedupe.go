package filer

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// DedupeTail is how far back from its end Append searches an inbox for a message
// id it is asked to file again: the last 1 MiB. Ids are unique, and a sender
// retries within seconds, so a retry's first copy is always this close to the end.
const DedupeTail = 1 << 20

var idKey = []byte(`"id":`)

// tailPool keeps the DedupeTail buffers Append reads into, one per append in flight.
var tailPool = sync.Pool{New: func() any { return new([DedupeTail]byte) }}

// heldIDs reports which of the lines' ids the complete lines in the last
// DedupeTail bytes before end already hold. It reads nothing when no line has an id.
func heldIDs(r io.ReaderAt, end int64, lines []Line) (map[string]bool, error) {
	held := map[string]bool{}
	wanted := map[string]bool{}
	for _, l := range lines {
		if l.ID != "" {
			wanted[l.ID] = true
		}
	}
	if len(wanted) == 0 || end == 0 {
		return held, nil
	}
	buf := tailPool.Get().(*[DedupeTail]byte)
	defer tailPool.Put(buf)
	start := max(0, end-DedupeTail)
	tail := buf[:end-start]
	if _, err := r.ReadAt(tail, start); err != nil {
		return nil, err
	}
	if start > 0 {
		// The window began mid-line; only complete lines count.
		i := bytes.IndexByte(tail, '\n')
		tail = tail[i+1:]
	}
	for len(tail) > 0 {
		i := bytes.Index(tail, idKey)
		if i < 0 {
			break
		}
		if id, ok := idAt(tail, i); ok && wanted[string(id)] {
			held[string(id)] = true
		}
		tail = tail[i+len(idKey):]
	}
	return held, nil
}

// idAt reads the id whose key starts at tail[i]. Only a key counts: it follows '{'
// or ',' and holds a JSON string. Inside another field's string every quote is
// escaped, so `"id":` there is always preceded by a backslash and never matches.
func idAt(tail []byte, i int) ([]byte, bool) {
	if i == 0 || (tail[i-1] != '{' && tail[i-1] != ',') {
		return nil, false
	}
	v := tail[i+len(idKey):]
	if len(v) == 0 || v[0] != '"' {
		return nil, false
	}
	v = v[1:]
	j := bytes.IndexByte(v, '"')
	if j < 0 {
		return nil, false
	}
	if bytes.IndexByte(v[:j], '\\') < 0 {
		return v[:j], bytes.IndexByte(v[:j], '\n') < 0
	}
	// An escaped id: find its real closing quote and decode it.
	for j = 0; j < len(v) && v[j] != '"'; j++ {
		if v[j] == '\\' {
			j++
		}
	}
	var id string
	if j >= len(v) || json.Unmarshal(append([]byte{'"'}, v[:j+1]...), &id) != nil {
		return nil, false
	}
	return []byte(id), true
}
