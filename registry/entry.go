package registry

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
)

// Entry is one agent's row. Fields sotd does not know survive in Extra. A known
// key whose value is not of its type (a "host" that is a number, a "floor" that is
// null) is not ours to reinterpret: it stays in Extra as it was, and the typed
// field is written over it only when code sets that field.
//
// The facts Floor, Dialog, Question, Waiting, Done, Note and StopAt are omitted
// when unset, so clearing one removes its key; an empty string is unset. The other
// fields keep their key when the row had it, even empty, and are added when set.
type Entry struct {
	Host        string
	WorkspaceID string
	Repo        string
	Root        string
	Expertise   []string
	Status      string
	Joined      string
	LastSeen    string
	State       string
	Summary     string
	StatusAt    string
	Floor       string
	Dialog      string
	Question    string
	Waiting     string
	Done        bool
	Note        string
	StopAt      string
	Extra       map[string]json.RawMessage

	keep uint32          // bit i: fields[i] is written even when empty (read so, or derived)
	odd  json.RawMessage // the row as read when it is not an object, kept verbatim
}

// field is one known key: how it loads from the row and what it writes back.
type field struct {
	key  string
	fact bool                            // omitted when unset, even if it was read
	load func(e *Entry, raw []byte) bool // false: not of our type, so it stays in Extra
	save func(e *Entry) (v any, set bool)
}

// fields is the protocol's key order, which is also the order Marshal writes.
var fields = []field{
	text("host", false, func(e *Entry) *string { return &e.Host }),
	text("workspace_id", false, func(e *Entry) *string { return &e.WorkspaceID }),
	text("repo", false, func(e *Entry) *string { return &e.Repo }),
	text("root", false, func(e *Entry) *string { return &e.Root }),
	{key: "expertise", load: loadStrings, save: func(e *Entry) (any, bool) {
		if e.Expertise == nil {
			return []string{}, false
		}
		return e.Expertise, true
	}},
	text("status", false, func(e *Entry) *string { return &e.Status }),
	text("joined", false, func(e *Entry) *string { return &e.Joined }),
	text("last_seen", false, func(e *Entry) *string { return &e.LastSeen }),
	text("state", false, func(e *Entry) *string { return &e.State }),
	text("summary", false, func(e *Entry) *string { return &e.Summary }),
	text("status_at", false, func(e *Entry) *string { return &e.StatusAt }),
	text("floor", true, func(e *Entry) *string { return &e.Floor }),
	text("dialog", true, func(e *Entry) *string { return &e.Dialog }),
	text("question", true, func(e *Entry) *string { return &e.Question }),
	text("waiting", true, func(e *Entry) *string { return &e.Waiting }),
	{key: "done", fact: true,
		load: func(e *Entry, raw []byte) bool {
			return (raw[0] == 't' || raw[0] == 'f') && json.Unmarshal(raw, &e.Done) == nil
		},
		save: func(e *Entry) (any, bool) { return e.Done, e.Done }},
	text("note", true, func(e *Entry) *string { return &e.Note }),
	text("stop_at", true, func(e *Entry) *string { return &e.StopAt }),
}

// keepBits are the bits of the named non-fact keys.
func keepBits(keys ...string) uint32 {
	var b uint32
	for i, f := range fields {
		for _, k := range keys {
			if f.key == k && !f.fact {
				b |= 1 << i
			}
		}
	}
	return b
}

func text(key string, fact bool, p func(*Entry) *string) field {
	return field{
		key:  key,
		fact: fact,
		load: func(e *Entry, raw []byte) bool { return raw[0] == '"' && json.Unmarshal(raw, p(e)) == nil },
		save: func(e *Entry) (any, bool) { return *p(e), *p(e) != "" },
	}
}

// loadStrings takes an array of strings only: json.Unmarshal would read a null
// element as "" and so change the value on the next write.
func loadStrings(e *Entry, raw []byte) bool {
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return false
	}
	out := make([]string, len(items))
	for i, it := range items {
		if it[0] != '"' || json.Unmarshal(it, &out[i]) != nil {
			return false
		}
	}
	e.Expertise = out
	return true
}

func parseEntry(raw json.RawMessage) (*Entry, error) {
	e := &Entry{}
	if raw[0] != '{' {
		c, err := compact(raw)
		e.odd = c
		return e, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for i, f := range fields {
		v, ok := m[f.key]
		if !ok || !f.load(e, v) {
			continue
		}
		delete(m, f.key)
		if !f.fact {
			e.keep |= 1 << i
		}
	}
	x, err := compactAll(m)
	e.Extra = x
	return e, err
}

func (e *Entry) marshal() (json.RawMessage, error) {
	var ms []member
	written := make(map[string]bool, len(fields))
	for i, f := range fields {
		v, set := f.save(e)
		if !set && (f.fact || e.keep&(1<<i) == 0) {
			continue
		}
		b, err := encode(v)
		if err != nil {
			return nil, err
		}
		ms = append(ms, member{f.key, b})
		written[f.key] = true
	}
	ms = appendExtra(ms, e.Extra, written)
	if len(ms) == 0 && e.odd != nil {
		return e.odd, nil
	}
	return object(ms, rowPad)
}

// rowPad is a row's indent: the rows sit at the second level of the document.
const rowPad = "    "

// member is one key of a JSON object being written, in the order given.
type member struct {
	key string
	val json.RawMessage
}

func appendExtra(ms []member, extra map[string]json.RawMessage, written map[string]bool) []member {
	for _, k := range sortedKeys(extra) {
		if !written[k] {
			ms = append(ms, member{k, extra[k]})
		}
	}
	return ms
}

// object writes ms as a JSON object, one member a line, indented under pad (the
// closing brace's indent). Values are written as they are, compact: only the
// levels the registry owns are laid out, so a deeply nested kept value costs its
// own size and not its depth squared.
func object(ms []member, pad string) (json.RawMessage, error) {
	if len(ms) == 0 {
		return json.RawMessage("{}"), nil
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, m := range ms {
		k, err := encode(m.key)
		if err != nil {
			return nil, err
		}
		b.WriteString(pad + "  ")
		b.Write(k)
		b.WriteString(": ")
		b.Write(m.val)
		if i < len(ms)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(pad + "}")
	return b.Bytes(), nil
}

// encode writes v as JSON without HTML escaping, so text people wrote (a summary
// with "<" or "&") reads in the file as they wrote it.
func encode(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// compact stores a kept value in one canonical spelling, so a value read back from
// what Marshal wrote equals the value read the first time.
func compact(raw json.RawMessage) (json.RawMessage, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func compactAll(m map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		c, err := compact(v)
		if err != nil {
			return nil, err
		}
		out[k] = c
	}
	return out, nil
}

// Clone is a copy of e that shares nothing with it, to put back later.
func (e *Entry) Clone() *Entry {
	c := *e
	c.Expertise = slices.Clone(e.Expertise)
	c.Extra = maps.Clone(e.Extra)
	c.odd = slices.Clone(e.odd)
	return &c
}
