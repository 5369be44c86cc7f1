package topology

import (
	"fmt"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// reader turns decoded TOML into a Topology, noting where each key was.
type reader struct {
	problems
	md       *toml.MetaData
	keyLines map[[2]string]int // {box, key} -> the line of that key
}

func (r *reader) topology(top map[string]toml.Primitive) *Topology {
	t := &Topology{Hosts: map[string]Host{}}
	for _, e := range entries(r.md, top) {
		switch e.name {
		case "hub":
			if t.Hubs != nil { // hubs came first
				r.fail(e.line, "has both hub and hubs: keep one, hub = \"<box>\" for one hub or hubs = [\"<box>\", \"<box>\"] for several, with every hub listed in hubs")
				continue
			}
			t.Hub = r.text(e, "hub")
			t.HubLine = e.line
		case "hubs":
			if t.Hub != "" {
				r.fail(e.line, "has both hub and hubs: keep one, hub = \"<box>\" for one hub or hubs = [\"<box>\", \"<box>\"] for several, with every hub listed in hubs")
				continue
			}
			t.Hubs = r.texts(e, "hubs")
			if t.Hubs == nil {
				t.Hubs = []string{}
			}
			if len(t.Hubs) > 0 {
				t.Hub = t.Hubs[0]
			}
			t.HubLine = e.line
		case "host":
			r.hosts(e, t)
		default:
			r.fail(e.line, "unknown top-level key %q: hosts.toml has only hub = \"<box>\" (or hubs = [\"<box>\", …]) and [host.<box>] tables, and a key under a box belongs below its [host.<box>] line", e.name)
		}
	}
	return t
}

func (r *reader) hosts(e entry, t *Topology) {
	boxes, ok := r.table(e, "host must be tables, one per box, each headed [host.<box>]")
	if !ok {
		return
	}
	for _, b := range entries(r.md, boxes) {
		where := tableName(b.name)
		keys, ok := r.table(b, where+" must be a table of the box's keys")
		if !ok {
			continue
		}
		h := Host{Name: b.name, Line: b.line}
		for _, k := range entries(r.md, keys) {
			what := k.name + " in " + where
			switch k.name {
			case "daemon":
				h.Daemon = r.boolean(k, what)
			case "frontend":
				h.Frontend = r.boolean(k, what)
			case "addr":
				h.Addr = r.text(k, what)
			case "ws_addr":
				h.WSAddr = r.text(k, what)
			case "key":
				h.Key = r.text(k, what)
			default:
				r.unknown(k, b.name)
				continue
			}
			r.keyLines[[2]string{b.name, k.name}] = k.line
		}
		t.Hosts[b.name] = h
	}
}

// at finds the line of a key for check: the key's own line where the file
// has it, else the line of the table it is missing from.
func (r *reader) at(t *Topology) func(box, key string) int {
	return func(box, key string) int {
		if l, ok := r.keyLines[[2]string{box, key}]; ok {
			return l
		}
		if box == "" {
			return t.HubLine
		}
		return t.Hosts[box].Line
	}
}

func (r *reader) table(e entry, want string) (map[string]toml.Primitive, bool) {
	// Checked first: toml v1.6 decodes a scalar into a map as an empty map.
	if v := r.value(e); !isTable(v) {
		r.fail(e.line, "%s, not %s", want, kind(v))
		return nil, false
	}
	var m map[string]toml.Primitive
	if err := r.md.PrimitiveDecode(e.val, &m); err != nil {
		r.fail(e.line, "%s: %v", want, err)
		return nil, false
	}
	return m, true
}

func (r *reader) text(e entry, what string) string {
	v := r.value(e)
	s, ok := v.(string)
	if !ok {
		r.fail(e.line, "%s must be a quoted string, not %s", what, kind(v))
	}
	return s
}

// texts reads an array of quoted strings.
func (r *reader) texts(e entry, what string) []string {
	v := r.value(e)
	arr, ok := v.([]any)
	if !ok {
		r.fail(e.line, "%s must be an array of quoted box names, such as [\"forge\", \"anvil\"], not %s", what, kind(v))
		return nil
	}
	out := make([]string, 0, len(arr))
	for i, x := range arr {
		s, ok := x.(string)
		if !ok {
			r.fail(e.line, "%s[%d] must be a quoted box name, not %s", what, i, kind(x))
			continue
		}
		out = append(out, s)
	}
	return out
}

func (r *reader) boolean(e entry, what string) bool {
	v := r.value(e)
	b, ok := v.(bool)
	if !ok {
		r.fail(e.line, "%s must be true or false (unquoted), not %s", what, kind(v))
	}
	return b
}

func (r *reader) value(e entry) any {
	var v any
	_ = r.md.PrimitiveDecode(e.val, &v) // decoding into any takes every value
	return v
}

func isTable(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

func kind(v any) string {
	switch v := v.(type) {
	case string:
		if len(v) > 40 {
			return fmt.Sprintf("a string of %d bytes", len(v))
		}
		return fmt.Sprintf("the string %q", v)
	case bool:
		return fmt.Sprintf("the boolean %t", v)
	case int64, float64:
		return fmt.Sprintf("the number %v", v)
	case time.Time:
		return "a date"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("a %T", v)
}

// unknown warns of a key a box's table does not take. A table there is most
// often a box name with a '.' left unquoted, which TOML reads as a subtable.
func (r *reader) unknown(k entry, box string) {
	where := tableName(box)
	if isTable(r.value(k)) {
		r.warn(k.line, "unknown table %q in %s is ignored; a box name with a '.' in it is quoted, as in [host.\"%s.%s\"]", k.name, where, box, k.name)
		return
	}
	r.warn(k.line, "unknown key %q in %s is ignored%s", k.name, where, suggest(k.name))
}

var hostKeys = []string{"daemon", "frontend", "addr", "ws_addr", "key"}

// suggest names the key a misspelling most likely meant: one that differs
// only in case or in '-' for '_'.
func suggest(key string) string {
	norm := strings.ReplaceAll(strings.ToLower(key), "-", "_")
	for _, k := range hostKeys {
		if norm == k {
			return fmt.Sprintf("; did you mean %s?", k)
		}
	}
	return fmt.Sprintf("; a box's keys are %s", strings.Join(hostKeys, ", "))
}
