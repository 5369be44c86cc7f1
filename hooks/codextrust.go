package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/sotcomm/sotd/ancestry"
)

// Codex runs a hook from hooks.json only once a person has trusted it, and
// trusts a hook as it is: config.toml records, for each, a table
//
//	[hooks.state."<hooks.json path>:<event_label>:<group>:<handler>"]
//	trusted_hash = "sha256:<hex>"
//
// keyed by the hook's place in hooks.json (its event, as snake_case, and the
// indexes of its matcher group and of it within the group), the hash taken over
// what the hook is: its event, matcher and normalized handler (its command, a
// timeout of 600 s unless it names one, async, a status message if any) as
// JSON with sorted keys and no spaces (serde_json's form). Codex 0.171 records
// the same hash that ReadCodexTrust computes (checked against its records); a hook whose record holds another
// hash (its command changed since it was trusted) is not run, as one with no
// record is not. A new session with such hooks opens on "Hooks need review".

// Trust is what Codex makes of one installed hook.
type Trust string

const (
	Trusted   Trust = "trusted"
	Untrusted Trust = "untrusted" // no trust recorded: Codex does not run it
	Modified  Trust = "modified"  // trust recorded for another form of it: not run
	Disabled  Trust = "disabled"  // turned off (enabled = false): not run
)

// CodexHook is one of sotd's hooks in Codex's hooks.json.
type CodexHook struct {
	Event   string // the hooks.json event, e.g. Stop
	Command string
	Key     string // its [hooks.state] key in config.toml
	Hash    string // the trusted_hash that trusts it as it is
	Trust   Trust
	// Written: the hook is as `sotd hooks install` writes it for its command;
	// false when it was changed by hand since.
	Written bool
}

// CodexTrust is sotd's hooks in a Codex home and Codex's trust in them.
type CodexTrust struct {
	Settings   string // hooks.json
	Config     string // config.toml, where trust is recorded
	Hooks      []CodexHook
	FeatureOff bool // [features] hooks = false: Codex runs no hook at all
}

// ReadCodexTrust reads sotd's hooks from Codex's hooks.json at settings (""
// is SettingsPath(Codex)) and the trust config.toml beside it records for
// each. A missing file is no hooks, or no trust; one that cannot be read or
// parsed is an error.
func ReadCodexTrust(settings string) (CodexTrust, error) {
	shown, path, err := settingsFile(Codex, settings)
	if err != nil {
		return CodexTrust{}, err
	}
	ct := CodexTrust{Settings: shown, Config: filepath.Join(filepath.Dir(shown), "config.toml")}
	b, _, err := readFile(path)
	if err != nil || len(b) == 0 {
		return ct, err
	}
	var cfg struct {
		Features map[string]any `toml:"features"`
		Hooks    struct {
			State map[string]hookState `toml:"state"`
		} `toml:"hooks"`
	}
	if _, err := toml.DecodeFile(ct.Config, &cfg); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ct, fmt.Errorf("%s could not be read (%v)", ct.Config, err)
	}
	ct.FeatureOff = cfg.Features["hooks"] == false
	found, err := sotdHooks(b, path)
	if err != nil {
		return ct, err
	}
	// Codex keys trust by the path it read hooks.json at. Codex 0.171 resolves
	// a CODEX_HOME that is a symlink, so the file's own path comes first; the
	// path as given is tried too.
	places := []string{path}
	if path != shown {
		places = append(places, shown)
	}
	for _, h := range found {
		h.CodexHook.Key, h.Trust = judge(cfg.Hooks.State, places, h)
		ct.Hooks = append(ct.Hooks, h.CodexHook)
	}
	return ct, nil
}

// hookState is one [hooks.state] table of config.toml.
type hookState struct {
	TrustedHash string `toml:"trusted_hash"`
	Enabled     *bool  `toml:"enabled"`
}

// judge finds h's state under its key at each place hooks.json may be known by,
// and says what Codex makes of it; with no state, the key is the first place's.
func judge(states map[string]hookState, places []string, h placed) (string, Trust) {
	for _, place := range places {
		key := fmt.Sprintf("%s:%s:%d:%d", place, h.Key, h.group, h.handler)
		st, ok := states[key]
		switch {
		case !ok:
			continue
		case st.Enabled != nil && !*st.Enabled:
			return key, Disabled
		case st.TrustedHash == h.Hash:
			return key, Trusted
		case st.TrustedHash != "":
			return key, Modified
		}
		return key, Untrusted
	}
	return fmt.Sprintf("%s:%s:%d:%d", places[0], h.Key, h.group, h.handler), Untrusted
}

// placed is a hook found in hooks.json: its Key is the event's label until
// ReadCodexTrust makes the whole key.
type placed struct {
	CodexHook
	spec           hookSpec
	group, handler int
}

// sotdHooks finds each of Codex's sotd hooks in hooks.json, at the indexes
// Codex counts (every group and handler of the event, whatever it holds).
func sotdHooks(b []byte, path string) ([]placed, error) {
	root, err := parseObject(b)
	if err != nil {
		return nil, fmt.Errorf("%s is not a settings file: %v; fix it by hand", path, err)
	}
	raw, ok := root.get("hooks")
	if !ok {
		return nil, nil
	}
	events, err := parseObject(raw)
	if err != nil {
		return nil, fmt.Errorf(`%s: its "hooks" is not an object; fix it by hand`, path)
	}
	var found []placed
	for _, sp := range specs[Codex] {
		raw, ok := events.get(sp.event)
		if !ok {
			continue
		}
		groups, err := list(raw, fmt.Sprintf("%s: hooks.%s", path, sp.event))
		if err != nil {
			continue
		}
		for h := range sotdHandlers(groups, sp.args) {
			command, hash := h.handler.text("command"), codexHookHash(sp.event, h.group, h.handler)
			found = append(found, placed{CodexHook{
				Event:   sp.event,
				Command: command,
				Key:     eventLabel(sp.event),
				Hash:    hash,
				Written: hash == writtenHash(sp, command),
			}, sp, h.gi, h.hi})
		}
	}
	return found, nil
}

// writtenHash is the hash of sp's hook as the install writes it to run command.
func writtenHash(sp hookSpec, command string) string {
	group := object{}
	if sp.matcher != "" {
		group.put("matcher", sp.matcher)
	}
	return codexHookHash(sp.event, group, sp.handler(command))
}

// eventLabel is an event's name in Codex's keys: PreToolUse is pre_tool_use.
func eventLabel(event string) string {
	var b strings.Builder
	for i, r := range event {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// matcherless are the events whose hooks Codex runs whatever their matcher says,
// and whose hash therefore names none.
var matcherless = map[string]bool{"UserPromptSubmit": true, "Stop": true}

// codexHookHash is the trusted_hash that trusts a hook as hooks.json has it.
func codexHookHash(event string, group, handler object) string {
	command := handler.text("command")
	if runtime.GOOS == "windows" {
		if w := firstOf(handler.text("commandWindows"), handler.text("command_windows")); w != "" {
			command = w
		}
	}
	timeout := uint64(600)
	if v, ok := handler.get("timeout"); ok {
		var n uint64
		if json.Unmarshal(v, &n) == nil {
			timeout = max(n, 1)
		}
	}
	var async bool
	if v, ok := handler.get("async"); ok {
		json.Unmarshal(v, &async)
	}
	var h strings.Builder
	h.WriteString(`{"async":` + strconv.FormatBool(async) + `,"command":` + serdeString(command))
	if v, ok := handler.get("statusMessage"); ok && string(v) != "null" {
		h.WriteString(`,"statusMessage":` + serdeString(handler.text("statusMessage")))
	}
	h.WriteString(`,"timeout":` + strconv.FormatUint(timeout, 10) + `,"type":"command"}`)
	identity := `{"event_name":` + serdeString(eventLabel(event)) + `,"hooks":[` + h.String() + `]`
	if m, ok := group.get("matcher"); ok && string(m) != "null" && !matcherless[event] {
		identity += `,"matcher":` + serdeString(group.text("matcher"))
	}
	sum := sha256.Sum256([]byte(identity + "}"))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// serdeString writes s as serde_json does: only '"', '\\' and control
// characters escaped, the short forms where JSON has them, everything else as
// its UTF-8 bytes.
func serdeString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// CodexServer is the pid of Codex's shared app-server running for codexHome,
// 0 when none runs: found by the pid file Codex keeps for it there
// (app-server-daemon/daemon.pid, JSON with a "pid") and confirmed by the
// process's command line, so a reused pid is not taken for it.
func CodexServer(codexHome string) (int, error) {
	path := filepath.Join(codexHome, "app-server-daemon", "daemon.pid")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("%s could not be read (%v)", path, err)
	}
	var rec struct {
		Pid int `json:"pid"`
	}
	if err := json.Unmarshal(b, &rec); err != nil || rec.Pid <= 0 {
		return 0, fmt.Errorf("%s names no pid (%q)", path, clip(strings.TrimSpace(string(b)), 80))
	}
	t, err := ancestry.OSTable()
	if err != nil {
		return 0, err
	}
	p, err := t.Proc(rec.Pid)
	if errors.Is(err, ancestry.ErrEnded) || err == nil && (p.Exited || !IsCodexServer(p.Argv)) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("process %d, named by %s, could not be read (%v)", rec.Pid, path, err)
	}
	return rec.Pid, nil
}
