package hooks

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// A person who runs `sotd hooks install` consents to the hooks it writes, so
// the install records Codex's trust in exactly those, as Codex's own "Trust
// all" would (see ReadCodexTrust): without it Codex runs none of them until a
// person answers its "Hooks need review". It trusts a hook only as sotd writes
// it, running this sotd: one changed since by hand, or any other hook, is left
// for Codex to ask about. --no-trust leaves config.toml alone; the uninstall
// takes out each record that trusts one of sotd's hooks as it was.
//
// config.toml is a person's file, with comments, and Codex rewrites it too:
// the edit is by line, of [hooks.state."<key>"] tables alone, and the result
// must read back as the trust meant, or nothing is written.

// codexTrustEdit is the edit of config.toml beside Codex's hooks.json (shown,
// and path, the file it names) that records trust in each sotd hook of body
// (hooks.json as the install leaves it) that is as the install writes it for
// sotd (want), or takes out the records that trust sotd's hooks of body
// (hooks.json before the uninstall; !want).
func codexTrustEdit(shown, path string, body []byte, sotd string, want bool) (edit, error) {
	config := filepath.Join(filepath.Dir(shown), "config.toml")
	if p, err := filepath.EvalSymlinks(config); err == nil {
		config = p
	}
	old, mode, err := readFile(config)
	if err != nil {
		return edit{}, err
	}
	e := edit{path: config, old: old, mode: mode, body: old, keep: true}
	if len(body) == 0 {
		return e, nil
	}
	if _, err := toml.Decode(string(old), new(any)); err != nil {
		if !want {
			return edit{}, fmt.Errorf("%s is not Codex's config (%v); fix it by hand and uninstall again", config, err)
		}
		return edit{}, fmt.Errorf("%s is not Codex's config (%v); fix it by hand, or install with --no-trust", config, err)
	}
	found, err := sotdHooks(body, path)
	if err != nil {
		return edit{}, err
	}
	doc := tomlDoc(old)
	trust := map[string]string{} // key: the hash recorded there after the edit ("" none)
	var did, handEdited []string
	for _, h := range found {
		key := fmt.Sprintf("%s:%s:%d:%d", path, h.Key, h.group, h.handler)
		switch {
		case want && (!h.Written || h.Command != sotd+" hook "+h.spec.args):
			if !slices.Contains(handEdited, h.Event) {
				handEdited = append(handEdited, h.Event)
			}
		case want:
			trust[key] = h.Hash
			if doc.setTrust(key, h.Hash) {
				did = append(did, h.Event)
			}
		case doc.unsetTrust(key, h.Hash):
			trust[key] = ""
			did = append(did, h.Event)
		}
	}
	if len(did) > 0 {
		if e.body, err = doc.checked(config, trust); err != nil {
			return edit{}, err
		}
		if len(strings.TrimSpace(string(e.body))) == 0 {
			e.body, e.keep = nil, false // it held sotd's records alone
		}
	}
	n := len(found) - len(handEdited)
	switch {
	case !want && len(did) > 0:
		e.say = header(config) + fmt.Sprintf("  %-10s Codex's trust in sotd's hooks: %s\n", removed, strings.Join(did, ", "))
	case want && n > 0:
		verb := unchanged
		if len(did) > 0 {
			verb = added
		}
		e.say = header(config) + fmt.Sprintf("  %-10s Codex's trust in the %d sotd hooks above, as written (install with --no-trust to trust them yourself in Codex)\n", verb, n)
	}
	if len(handEdited) > 0 {
		e.say += fmt.Sprintf("  %-10s %s: changed by hand since sotd wrote it, so Codex asks about it\n", "untrusted", strings.Join(handEdited, ", "))
	}
	return e, nil
}

// tomlText is config.toml as lines, and the tables they hold.
type tomlText struct {
	lines []string
}

func tomlDoc(b []byte) *tomlText {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return &tomlText{}
	}
	return &tomlText{lines: strings.Split(s, "\n")}
}

// table is where the table named by path starts (its header's line) and ends
// (the next header's line, or the end); start -1 when there is none.
func (d *tomlText) table(path ...string) (start, end int) {
	start = -1
	for i, l := range d.lines {
		p, ok := tomlHeader(l)
		switch {
		case !ok:
		case start >= 0:
			return start, i
		case slices.Equal(p, path):
			start = i
		}
	}
	return start, len(d.lines)
}

// tomlHeader is the key path a line's table header names, ok false when the
// line is no header ([[x]], an array of tables, names none but ends a table).
func tomlHeader(line string) (path []string, ok bool) {
	l := strings.TrimSpace(line)
	if !strings.HasPrefix(l, "[") {
		return nil, false
	}
	if strings.HasPrefix(l, "[[") {
		return nil, true
	}
	var m map[string]any
	if _, err := toml.Decode(l, &m); err != nil {
		return nil, false // a line of a multi-line value
	}
	for len(m) == 1 {
		for k, v := range m {
			path = append(path, k)
			m, _ = v.(map[string]any)
		}
	}
	return path, true
}

// trustLine is the index of the trusted_hash line in [start, end), -1 if none,
// and the hash it holds.
func (d *tomlText) trustLine(start, end int) (int, string) {
	for i := start + 1; i < end; i++ {
		var v struct {
			TrustedHash *string `toml:"trusted_hash"`
		}
		if _, err := toml.Decode(d.lines[i], &v); err == nil && v.TrustedHash != nil {
			return i, *v.TrustedHash
		}
	}
	return -1, ""
}

// setTrust records hash as the trust of the hook at key, and reports whether
// that changed anything.
func (d *tomlText) setTrust(key, hash string) bool {
	want := "trusted_hash = " + serdeString(hash)
	start, end := d.table("hooks", "state", key)
	if start < 0 {
		if n := len(d.lines); n > 0 && strings.TrimSpace(d.lines[n-1]) != "" {
			d.lines = append(d.lines, "")
		}
		d.lines = append(d.lines, "[hooks.state."+serdeString(key)+"]", want)
		return true
	}
	i, had := d.trustLine(start, end)
	switch {
	case had == hash:
		return false
	case i >= 0:
		d.lines[i] = want
	default:
		d.lines = slices.Insert(d.lines, start+1, want)
	}
	return true
}

// unsetTrust takes out the record at key that trusts hash, and the table when
// nothing else is left in it, and reports whether it took one out.
func (d *tomlText) unsetTrust(key, hash string) bool {
	start, end := d.table("hooks", "state", key)
	if start < 0 {
		return false
	}
	i, had := d.trustLine(start, end)
	if i < 0 || had != hash {
		return false
	}
	d.lines = slices.Delete(d.lines, i, i+1)
	end--
	for j := start + 1; j < end; j++ {
		if strings.TrimSpace(d.lines[j]) != "" {
			return true // the table holds more (enabled, a comment): it stays
		}
	}
	d.lines = slices.Delete(d.lines, start, end)
	for n := len(d.lines); n > 0 && strings.TrimSpace(d.lines[n-1]) == ""; n-- {
		d.lines = d.lines[:n-1]
	}
	if start > 0 && start < len(d.lines) && strings.TrimSpace(d.lines[start-1]) == "" && strings.TrimSpace(d.lines[start]) == "" {
		d.lines = slices.Delete(d.lines, start, start+1)
	}
	return true
}

// checked is the edited file, once it reads back with each key's trust as
// trust says ("" none): a file that records trust in a form the line edit
// does not follow (an inline table, dotted keys) is never written.
func (d *tomlText) checked(config string, trust map[string]string) ([]byte, error) {
	body := strings.Join(d.lines, "\n")
	if body != "" {
		body += "\n"
	}
	var cfg struct {
		Hooks struct {
			State map[string]hookState `toml:"state"`
		} `toml:"hooks"`
	}
	_, err := toml.Decode(body, &cfg)
	for key, hash := range trust {
		if err == nil && cfg.Hooks.State[key].TrustedHash != hash {
			err = fmt.Errorf("the trust of %s reads back as %q", key, cfg.Hooks.State[key].TrustedHash)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s records hook trust in a form sotd does not edit (%v); install with --no-trust and %s", config, err, TrustHow)
	}
	return []byte(body), nil
}
