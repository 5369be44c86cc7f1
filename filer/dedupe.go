package filer

import (
	"bytes"
	"encoding/json"
	"sync"
)

// DedupeTail is how far back from its end Append searches an inbox for a message
// id it is asked to file again: the complete lines that start inside the last
// 1 MiB. Ids are unique, and a sender retries within seconds, so a retry's first
// copy is always this close to the end.
const DedupeTail = 1 << 20

var idKey = []byte(`"id":`)

// tailPool keeps the DedupeTail buffers Append reads into, one per append in flight.
var tailPool = sync.Pool{New: func() any { return new([DedupeTail]byte) }}

// eachID calls found for every id key in b, whole lines that start at the file
// offset base, with the offset of the line that holds it; only for the wanted ids
// when wanted is not nil.
func eachID(b []byte, base int64, wanted map[string]bool, found func(id string, line int64)) {
	line, lined := 0, 0 // the line that holds b[lined]
	for from := 0; ; {
		i := bytes.Index(b[from:], idKey)
		if i < 0 {
			return
		}
		i += from
		from = i + len(idKey)
		id, ok := idAt(b, i)
		if !ok || wanted != nil && !wanted[string(id)] {
			continue
		}
		if nl := bytes.LastIndexByte(b[lined:i], '\n'); nl >= 0 {
			line = lined + nl + 1
		}
		lined = i
		found(string(id), base+int64(line))
	}
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
