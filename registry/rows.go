package registry

import (
	"encoding/json"

	"github.com/sotcomm/sotd/home"
)

// ReadRows is Read for a command that needs only some rows (a send's sender and
// receiver, a poll's or a hook's own): the same fresh read, the same answers
// (present, absent, unreadable) for the same bytes, but only the named rows
// are decoded. The whole file is still checked to be one JSON document with an
// object .agents, so a registry damaged anywhere is unreadable here too; it is
// only the decoding into rows, most of a read's cost with thousands of rows,
// that is skipped. The Doc holds the named rows that are present and the
// protocol_version, and nothing else: it is for reading, and Marshal refuses it.
func ReadRows(h home.Home, names ...string) (*Doc, error) {
	path := h.Registry()
	b, err := readBytes(h, path)
	if err != nil {
		return nil, err
	}
	d, why := parseRows(b, names)
	if why != "" {
		return nil, unreadableFile(path, why)
	}
	return d, nil
}

// parseRows is parse for the named rows only. The fast walk (pick) answers the
// documents it is sure of; anything it does not take is parsed whole, so every
// unreadable answer and its reason are parse's own.
func parseRows(b []byte, names []string) (*Doc, string) {
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	if p, ok := pick(b, want); ok {
		if d, ok := p.doc(); ok {
			return d, ""
		}
	}
	d, why := parse(b)
	if why != "" {
		return nil, why
	}
	part := &Doc{ProtocolVersion: d.ProtocolVersion, Agents: map[string]*Entry{}, versionSeen: d.versionSeen, partial: true}
	for n := range want {
		if e, ok := d.Agents[n]; ok {
			part.Agents[n] = e
		}
	}
	return part, ""
}

// check is parse's why for b without its rows: "" when b is a registry. The
// walk answers a registry at a fraction of parse's cost; what it does not
// take is parsed, for parse's own answer.
func check(b []byte) string {
	if _, ok := pick(b, nil); ok {
		return ""
	}
	_, why := parse(b)
	return why
}

// doc decodes the picked rows; false when one does not decode, which parse
// then tells in its words.
func (p *picker) doc() (*Doc, bool) {
	d := &Doc{Agents: make(map[string]*Entry, len(p.rows)), partial: true}
	for n, raw := range p.rows {
		e, err := parseEntry(raw)
		if err != nil {
			return nil, false
		}
		d.Agents[n] = e
	}
	if p.version != nil {
		d.ProtocolVersion, d.versionSeen = version(p.version)
	}
	return d, true
}

// picker walks a registry's bytes once. It takes only what encoding/json
// takes, and is stricter where that is simpler (a nesting depth past
// maxDepth): what it does not take is left to parse.
type picker struct {
	b       []byte
	i       int
	want    map[string]bool
	all     bool                       // every row is wanted (Index), in names and spans
	rows    map[string]json.RawMessage // the wanted rows of the last .agents
	names   []string                   // with all: every row of the last .agents, in order
	spans   []span                     // with all: where each of names is
	version json.RawMessage            // the last top-level protocol_version
	agents  bool                       // the last top-level .agents is an object

	// For a write of one row in place (Mark): where each wanted row starts,
	// how many times a wanted name was met, and how many .agents there were.
	starts       map[string]int
	hits, agentN int
}

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// pick walks b: true when b is one JSON object (whitespace around it) whose
// last .agents is an object.
func pick(b []byte, want map[string]bool) (*picker, bool) {
	return (&picker{b: b, want: want}).walk()
}

// walk is pick's walk of p.b, for the rows p wants.
func (p *picker) walk() (*picker, bool) {
	p.space()
	if !p.top() {
		return nil, false
	}
	p.space()
	return p, p.i == len(p.b) && p.agents
}

func (p *picker) space() {
	b, i := p.b, p.i
	for i < len(b) && blank[b[i]] {
		i++
	}
	p.i = i
}

// blank marks JSON's white space: a registry laid out one key a line is a
// third blanks.
var blank = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// at reports whether the next byte is c, and steps past it when it is.
func (p *picker) at(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// top walks the document's object, noting its protocol_version and .agents.
func (p *picker) top() bool {
	return p.object(1, func(raw []byte, plain bool) bool {
		key, ok := keyOf(raw, plain)
		if !ok {
			return false
		}
		switch key {
		case "agents":
			p.agents = p.i < len(p.b) && p.b[p.i] == '{'
			if !p.agents {
				return p.value(2)
			}
			p.rows, p.starts = map[string]json.RawMessage{}, map[string]int{}
			p.names, p.spans = nil, nil
			p.agentN++
			return p.object(2, func(raw []byte, plain bool) bool {
				start := p.i
				if !p.value(3) {
					return false
				}
				if plain {
					// Looked up without a string made of it: most rows are
					// not wanted, and a key each is most of the garbage.
					if k := raw[1 : len(raw)-1]; p.all || p.want[string(k)] {
						p.take(string(k), start)
					}
					return true
				}
				name, ok := keyOf(raw, plain)
				if ok && (p.all || p.want[name]) {
					p.take(name, start)
				}
				return ok
			})
		case "protocol_version":
			start := p.i
			ok := p.value(2)
			p.version = p.b[start:p.i]
			return ok
		}
		return p.value(2)
	})
}

// take keeps the row just walked, which began at start.
func (p *picker) take(name string, start int) {
	if p.all {
		p.names = append(p.names, name)
		p.spans = append(p.spans, span{start, p.i})
		return
	}
	p.rows[name] = p.b[start:p.i]
	p.starts[name] = start
	p.hits++
}

// object walks an object at depth, handing each member's key (as written,
// quotes included, and whether it is plain: see str) to member with the walk at
// its value; member walks the value. A nil member walks it as any value.
func (p *picker) object(depth int, member func(key []byte, plain bool) bool) bool {
	if depth > maxDepth || !p.at('{') {
		return false
	}
	p.space()
	if p.at('}') {
		return true
	}
	for {
		start := p.i
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return false
		}
		plain, ok := p.str()
		if !ok {
			return false
		}
		key := p.b[start:p.i]
		p.space()
		if !p.at(':') {
			return false
		}
		p.space()
		if member == nil {
			ok = p.value(depth + 1)
		} else {
			ok = member(key, plain)
		}
		if !ok {
			return false
		}
		p.space()
		if p.at('}') {
			return true
		}
		if !p.at(',') {
			return false
		}
		p.space()
	}
}

// keyOf is a walked key as encoding/json decodes it.
func keyOf(raw []byte, plain bool) (string, bool) {
	if plain {
		return string(raw[1 : len(raw)-1]), true
	}
	var k string
	return k, json.Unmarshal(raw, &k) == nil
}

// value walks one JSON value at depth.
func (p *picker) value(depth int) bool {
	if p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth, nil)
	case c == '[':
		return p.array(depth)
	case c == '"':
		_, ok := p.str()
		return ok
	case c == 't':
		return p.word("true")
	case c == 'f':
		return p.word("false")
	case c == 'n':
		return p.word("null")
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return false
}

func (p *picker) array(depth int) bool {
	if depth > maxDepth || !p.at('[') {
		return false
	}
	p.space()
	if p.at(']') {
		return true
	}
	for {
		if !p.value(depth + 1) {
			return false
		}
		p.space()
		if p.at(']') {
			return true
		}
		if !p.at(',') {
			return false
		}
		p.space()
	}
}

func (p *picker) word(w string) bool {
	if len(p.b)-p.i < len(w) || string(p.b[p.i:p.i+len(w)]) != w {
		return false
	}
	p.i += len(w)
	return true
}

// number walks -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *picker) number() bool {
	p.at('-')
	if p.at('0') {
	} else if !p.digits() {
		return false
	}
	if p.at('.') && !p.digits() {
		return false
	}
	if p.at('e') || p.at('E') {
		if !p.at('+') {
			p.at('-')
		}
		return p.digits()
	}
	return true
}

// digits walks one or more digits.
func (p *picker) digits() bool {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// strByte marks the bytes a string's walk stops at: its end, an escape, a
// control character (not allowed in a string), and a byte past ASCII (so the
// key is decoded as encoding/json decodes it).
var strByte = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	return t
}()

// str walks a string; plain: it holds no escape and only ASCII, so its bytes
// are its value.
func (p *picker) str() (plain, ok bool) {
	b := p.b
	i := p.i + 1
	plain = true
	for i < len(b) {
		for i < len(b) && !strByte[b[i]] {
			i++
		}
		if i >= len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			p.i = i + 1
			return plain, true
		case c < 0x20:
			return false, false
		case c >= 0x80:
			plain = false
			i++
		default: // a backslash
			plain = false
			n, ok := escape(b[i+1:])
			if !ok {
				return false, false
			}
			i += 1 + n
		}
	}
	return false, false
}

// escape is the length of a string escape's body (after its backslash).
func escape(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	switch b[0] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 1, true
	case 'u':
		if len(b) < 5 {
			return 0, false
		}
		for _, c := range b[1:5] {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return 0, false
			}
		}
		return 5, true
	}
	return 0, false
}
