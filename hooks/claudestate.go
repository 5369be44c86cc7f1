package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/sotcomm/sotd/home"
)

// Presence is how a file sotd writes whole stands against what this sotd
// would write.
type Presence string

const (
	Current  Presence = "current"
	Missing  Presence = "missing"
	Outdated Presence = "outdated" // an older sotd's
	Foreign  Presence = "foreign"  // another's file under sotd's name
)

func presence(have, want []byte, ours bool) Presence {
	switch {
	case have == nil:
		return Missing
	case bytes.Equal(have, want):
		return Current
	case ours:
		return Outdated
	}
	return Foreign
}

// ClaudeState is what of `sotd hooks install --claude` a Claude Code config
// holds, as sotd doctor reports it: each part is judged against what an install
// by this sotd (its command, Sotd) would write now.
type ClaudeState struct {
	Settings  string   // settings.json
	Hooks     int      // sotd hooks there that run this sotd, on the install's matcher
	Missing   []string // events with no sotd hook
	Stale     []string // "<event>: <command>" of sotd hooks that run another sotd or match other tools
	Skill     string   // the skill's SKILL.md
	SkillIs   Presence // the skill against this sotd's
	JSON      string   // .claude.json, where the MCP server is registered
	MCP       string   // the sot-comm server's command line as registered, "" when none
	MCPIsOurs bool     // it runs this sotd's mcp
	Rules     []string // PermissionRules missing from permissions.allow
	// Plugin is sotd's Claude Code plugin as the settings enable it.
	Plugin PluginState
}

// PluginState is sotd's Claude Code plugin in a config: enabled in
// settings.json's enabledPlugins, and its installed files judged against what
// this sotd renders (PluginFiles).
type PluginState struct {
	ID      string   // the enabled plugin, sot-comm@<marketplace>; "" when none is
	Dir     string   // its installed folder, "" when installed_plugins.json names none
	Hooks   Presence // hooks/hooks.json
	Skill   Presence // skills/sot-comm/SKILL.md
	MCP     Presence // .mcp.json
	Listing string   // installed_plugins.json, where Claude Code records its folder
}

// ReadClaude reads the Claude Code config at settings ("" is
// SettingsPath(Claude)) for what Install puts there for the comm home h,
// against the command sotd ("" is SotdCommand()). A missing file holds
// nothing; one that cannot be read or parsed is an error.
func ReadClaude(h home.Home, settings, sotd string) (ClaudeState, error) {
	shown, path, err := settingsFile(Claude, settings)
	if err != nil {
		return ClaudeState{}, err
	}
	if sotd == "" {
		if sotd, err = SotdCommand(); err != nil {
			return ClaudeState{}, err
		}
	}
	st := ClaudeState{Settings: shown, Skill: InstructionsPath(Claude, shown), JSON: ClaudeJSONPath(shown), Rules: PermissionRules()}
	b, _, err := readFile(path)
	if err != nil {
		return st, err
	}
	root, err := settingsRoot(b, path)
	if err != nil {
		return st, err
	}
	if err := st.readHooks(root, specsFor(Claude, h), sotd, path); err != nil {
		return st, err
	}
	if st.Rules, err = missingRules(root, path); err != nil {
		return st, err
	}
	if st.Plugin, err = readPlugin(root, shown, path); err != nil {
		return st, err
	}
	text, _, err := readFile(st.Skill)
	if err != nil {
		return st, err
	}
	_, ours, _ := untaught(Claude, text, st.Skill)
	st.SkillIs = presence(text, skill(), ours)
	return st, st.readMCP(sotd)
}

// readHooks sorts each of the install's hooks into found, missing or stale.
func (st *ClaudeState) readHooks(root object, want []hookSpec, sotd, path string) error {
	hooks := object{}
	if raw, ok := root.get("hooks"); ok {
		var err error
		if hooks, err = parseObject(raw); err != nil {
			return fmt.Errorf(`%s: its "hooks" is not an object; fix it by hand`, path)
		}
	}
	for _, sp := range want {
		var groups []json.RawMessage
		if raw, ok := hooks.get(sp.event); ok {
			groups, _ = list(raw, sp.event)
		}
		c := change{spec: sp, command: sotd + " hook " + sp.args}
		if _, err := place(slices.Clone(groups), &c); err != nil {
			return fmt.Errorf("%s: hooks.%s: %v", path, sp.event, err)
		}
		switch c.did {
		case unchanged:
			st.Hooks++
		case added:
			st.Missing = append(st.Missing, sp.event)
		default:
			st.Stale = append(st.Stale, sp.event+": "+c.was)
		}
	}
	return nil
}

// missingRules is the PermissionRules the settings' permissions.allow lacks.
func missingRules(root object, path string) ([]string, error) {
	_, _, have, err := allowList(root, path)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, r := range PermissionRules() {
		if !slices.Contains(have, r) {
			missing = append(missing, r)
		}
	}
	return missing, nil
}

// readMCP reads sot-comm's registration in .claude.json.
func (st *ClaudeState) readMCP(sotd string) error {
	path := st.JSON
	b, _, err := readFile(path)
	if err != nil {
		return err
	}
	_, servers, err := mcpServers(b, path)
	if err != nil {
		return err
	}
	raw, ok := servers.get(mcpName)
	if !ok {
		return nil
	}
	entry, err := parseObject(raw)
	if err != nil {
		return fmt.Errorf(`%s: mcpServers.%s is not an object; fix it by hand`, path, mcpName)
	}
	var args []string
	if a, ok := entry.get("args"); ok {
		json.Unmarshal(a, &args)
	}
	st.MCP = entry.text("command")
	for _, a := range args {
		st.MCP += " " + a
	}
	if words, ok := simpleCommand(sotd); ok && len(words) == 1 {
		sotd = words[0]
	}
	want, _ := json.Marshal(mcpEntry(sotd))
	st.MCPIsOurs = sameJSON(raw, want)
	return nil
}
