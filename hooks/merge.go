package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
)

// merge adds or updates each spec's hook in the settings' "hooks" object and
// returns the new file.
func merge(old []byte, want []hookSpec, sotd, path string) ([]byte, []change, error) {
	root, err := settingsRoot(old, path)
	if err != nil {
		return nil, nil, err
	}
	hooks := object{}
	if raw, ok := root.get("hooks"); ok {
		var err error
		if hooks, err = parseObject(raw); err != nil {
			return nil, nil, fmt.Errorf(`%s: its "hooks" is not an object; fix it by hand`, path)
		}
	}
	var changes []change
	for _, sp := range want {
		var groups []json.RawMessage
		if raw, ok := hooks.get(sp.event); ok {
			var err error
			if groups, err = list(raw, fmt.Sprintf("%s: hooks.%s", path, sp.event)); err != nil {
				return nil, nil, fmt.Errorf("%v; fix it by hand", err)
			}
		}
		c := change{spec: sp, command: sotd + " hook " + sp.args}
		var err error
		if groups, err = place(groups, &c); err != nil {
			return nil, nil, fmt.Errorf("%s: hooks.%s: %v", path, sp.event, err)
		}
		changes = append(changes, c)
		if err := hooks.put(sp.event, groups); err != nil {
			return nil, nil, err
		}
	}
	if err := root.put("hooks", hooks); err != nil {
		return nil, nil, err
	}
	out, err := render(root)
	return out, changes, err
}

// render writes a settings file as merge does: two-space indents, a final newline.
func render(root object) ([]byte, error) {
	compact, err := json.Marshal(root)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// unmerge is merge reversed: every sotd hook of want comes out of the settings'
// "hooks" object, and so does each matcher group, event list and the "hooks"
// object itself that this leaves empty (merge adds them so). Everything else
// stays, in its order.
func unmerge(old []byte, want []hookSpec, path string) ([]byte, []change, error) {
	if len(bytes.TrimSpace(old)) == 0 {
		return old, nil, nil
	}
	root, err := parseObject(old)
	if err != nil {
		return nil, nil, fmt.Errorf("%s is not a settings file: %v; fix it by hand", path, err)
	}
	raw, ok := root.get("hooks")
	if !ok {
		out, err := render(root)
		return out, nil, err
	}
	hooks, err := parseObject(raw)
	if err != nil {
		return nil, nil, fmt.Errorf(`%s: its "hooks" is not an object; fix it by hand`, path)
	}
	var changes []change
	for _, sp := range want {
		raw, ok := hooks.get(sp.event)
		if !ok {
			continue
		}
		groups, err := list(raw, fmt.Sprintf("%s: hooks.%s", path, sp.event))
		if err != nil {
			continue // not merge's shape: merge refuses it, so it holds no sotd hook
		}
		kept, gone, err := takeOut(groups, sp)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: hooks.%s: %v", path, sp.event, err)
		}
		for _, command := range gone {
			changes = append(changes, change{spec: sp, command: command, did: removed})
		}
		switch {
		case len(gone) == 0:
		case len(kept) == 0:
			hooks.del(sp.event)
		default:
			if err := hooks.put(sp.event, kept); err != nil {
				return nil, nil, err
			}
		}
	}
	if len(changes) > 0 && len(hooks) == 0 {
		root.del("hooks")
	} else if err := root.put("hooks", hooks); err != nil {
		return nil, nil, err
	}
	out, err := render(root)
	return out, changes, err
}

// takeOut removes sp's sotd hook from an event's matcher groups, and a group it
// leaves with no hook; it returns the groups kept and the commands removed.
func takeOut(groups []json.RawMessage, sp hookSpec) (kept []json.RawMessage, gone []string, err error) {
	for _, g := range groups {
		group, perr := parseObject(g)
		raw, ok := group.get("hooks")
		if perr != nil || !ok {
			kept = append(kept, g)
			continue
		}
		handlers, lerr := list(raw, "a matcher group's hooks")
		if lerr != nil {
			kept = append(kept, g)
			continue
		}
		var left []json.RawMessage
		for _, h := range handlers {
			handler, err := parseObject(h)
			if err == nil && runsSotdHook(handler.text("command"), sp.args) {
				gone = append(gone, handler.text("command"))
				continue
			}
			left = append(left, h)
		}
		switch {
		case len(left) == len(handlers):
			kept = append(kept, g)
		case len(left) > 0:
			if err := group.put("hooks", left); err != nil {
				return nil, nil, err
			}
			b, err := json.Marshal(group)
			if err != nil {
				return nil, nil, err
			}
			kept = append(kept, b)
		}
	}
	return kept, gone, nil
}

// What Install did for one hook.
const (
	added     = "added"
	updated   = "updated"
	unchanged = "unchanged"
	removed   = "removed"
)

// place finds c's sotd hook among an event's matcher groups and brings it up to
// date, or adds a group of its own, and says which in c. A group that holds
// other hooks besides sotd's keeps its matcher: it is not sotd's to change.
func place(groups []json.RawMessage, c *change) ([]json.RawMessage, error) {
	sp := c.spec
	// The first of sotd's hooks for this event is brought up to date.
	for found := range sotdHandlers(groups, sp.args) {
		group, handlers, handler := found.group, found.handlers, found.handler
		oldCommand, oldMatcher := handler.text("command"), group.text("matcher")
		own := len(handlers) == 1
		want := sp.handler(c.command)
		if oldCommand == c.command && (!own || oldMatcher == sp.matcher) && holds(handler, want) {
			c.did = unchanged
			return groups, nil
		}
		c.did, c.was = updated, oldCommand
		for _, m := range want {
			handler.put(m.key, m.val)
		}
		if own && oldMatcher != sp.matcher {
			c.was += " on " + matching(oldMatcher)
			group.del("matcher")
			if sp.matcher != "" {
				group.put("matcher", sp.matcher)
			}
		}
		var err error
		if handlers[found.hi], err = json.Marshal(handler); err != nil {
			return nil, err
		}
		if err := group.put("hooks", handlers); err != nil {
			return nil, err
		}
		if groups[found.gi], err = json.Marshal(group); err != nil {
			return nil, err
		}
		return groups, nil
	}
	group := object{}
	if sp.matcher != "" {
		group.put("matcher", sp.matcher)
	}
	group.put("hooks", []any{sp.handler(c.command)})
	b, err := json.Marshal(group)
	if err != nil {
		return nil, err
	}
	c.did = added
	return append(groups, b), nil
}

// holds reports whether handler has every key of want with want's value.
func holds(handler, want object) bool {
	for _, m := range want {
		raw, ok := handler.get(m.key)
		if !ok || !bytes.Equal(bytes.TrimSpace(raw), m.val) {
			return false
		}
	}
	return true
}

func matching(matcher string) string {
	if matcher == "" {
		return "every tool"
	}
	return matcher
}

// sotdHandler is one of sotd's hooks among an event's matcher groups: where it
// stands (group gi, hook hi) and the group and hook objects that hold it.
type sotdHandler struct {
	gi, hi   int
	group    object
	handlers []json.RawMessage
	handler  object
}

// sotdHandlers yields, in order, every hook among an event's matcher groups
// whose command runs "sotd hook <args>". What is not a matcher group or a hook
// is passed over: it is not sotd's, and stays as it is.
func sotdHandlers(groups []json.RawMessage, args string) iter.Seq[sotdHandler] {
	return func(yield func(sotdHandler) bool) {
		for gi, g := range groups {
			group, err := parseObject(g)
			if err != nil {
				continue
			}
			raw, ok := group.get("hooks")
			if !ok {
				continue
			}
			handlers, err := list(raw, "a matcher group's hooks")
			if err != nil {
				continue
			}
			for hi, h := range handlers {
				handler, err := parseObject(h)
				if err != nil || !runsSotdHook(handler.text("command"), args) {
					continue
				}
				if !yield(sotdHandler{gi, hi, group, handlers, handler}) {
					return
				}
			}
		}
	}
}

// runsSotdHook reports whether a hook command is `<a sotd> hook <args>`: sotd's
// own hook for that verb, wherever its sotd lives.
func runsSotdHook(command, args string) bool {
	words, ok := simpleCommand(command)
	if !ok || len(words) < 2 || program(words[0]) != "sotd" {
		return false
	}
	return strings.Join(words[1:], " ") == "hook "+args
}
