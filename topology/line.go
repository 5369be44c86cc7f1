package topology

import (
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// lineOf is the line p's key is on. toml v1.6 exports no key positions, but
// its decoder puts the line of the key it could not decode in its error's text,
// "toml: line N (last key …)", and nothing decodes into a channel. (Its
// ParseError carries the line too, but builds it by splitting the whole file
// on every call, which made a large file quadratic.) The line tests pin the
// form, so a toml upgrade that changes it fails them. A table the file only
// implies (host, in [host.a]) has no line of its own; it takes its first key's.
func lineOf(md *toml.MetaData, p toml.Primitive) int {
	var never chan struct{}
	if err := md.PrimitiveDecode(p, &never); err != nil {
		if rest, ok := strings.CutPrefix(err.Error(), "toml: line "); ok {
			digits, _, _ := strings.Cut(rest, " ")
			if n, err := strconv.Atoi(digits); err == nil && n > 0 {
				return n
			}
		}
	}
	var m map[string]toml.Primitive
	if md.PrimitiveDecode(p, &m) != nil {
		return 0
	}
	first := 0
	for _, c := range m {
		if l := lineOf(md, c); l > 0 && (first == 0 || l < first) {
			first = l
		}
	}
	return first
}

// entry is one key of a table, with its value still undecoded.
type entry struct {
	name string
	val  toml.Primitive
	line int
}

// entries lists a table's keys in the order the file gives them, so findings
// come out in line order without depending on map order.
func entries(md *toml.MetaData, m map[string]toml.Primitive) []entry {
	es := make([]entry, 0, len(m))
	for name, v := range m {
		es = append(es, entry{name: name, val: v, line: lineOf(md, v)})
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].line != es[j].line {
			return es[i].line < es[j].line
		}
		return es[i].name < es[j].name
	})
	return es
}
