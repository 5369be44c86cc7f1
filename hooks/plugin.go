package hooks

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// Claude Code also takes hooks, a skill and an MCP server as a plugin from a
// marketplace: `claude plugin marketplace add sotcomm/sotd` (or a clone's
// path) and `claude plugin install sot-comm@sotd` set a session up with no
// `sotd hooks install`. This repository is the marketplace
// (.claude-plugin/marketplace.json) and holds the plugin in PluginDir. Its
// files are rendered here from what Install writes, so the two cannot drift:
// TestPlugin compares the checked-in files with PluginFiles and
// MarketplaceJSON, and rewrites them with -update.
//
// A plugin's hooks name sotd as "sotd", found on PATH, so one plugin serves
// every box. It differs from an install in what a plugin cannot know or is
// named by:
//   - its MCP server's tools are named by the plugin (pluginTools), so the
//     subagent guard's matcher names those;
//   - the re-arm file's path is each box's comm home, which no file of the
//     plugin can hold: its FileChanged matcher is the bare name (what matches
//     the file's base name), and the SessionStart hook `sotd hook watch`
//     tells Claude Code the path to watch;
//   - permission rules: Claude Code reads only "agent" and
//     "subagentStatusLine" from a plugin's settings.json (2.1.197 and
//     2.1.332), so the plugin carries none; its PreToolUse guard, `sotd hook
//     pretool --allow-mail`, allows the session's own mail commands in their
//     stead, no more than the rules would (see PreTool).
//   - the comm-*.sh shims are in its bin/, which Claude Code puts on its Bash
//     tool's PATH, not the comm home's.

const (
	// PluginName is the plugin's name, and MarketplaceName the marketplace's:
	// a session installs it as sot-comm@sotd.
	PluginName      = mcpName
	MarketplaceName = "sotd"
	// PluginDir is the plugin's folder in this repository, from its root: a
	// folder of its own, so installing it copies its few files into Claude
	// Code's plugin cache and not the whole repository.
	PluginDir = "plugins/" + PluginName
	// MarketplacePath is the marketplace manifest, from the repository's root.
	MarketplacePath = ".claude-plugin/marketplace.json"
	// PluginID is how Claude Code names the installed plugin in enabledPlugins.
	PluginID = PluginName + "@" + MarketplaceName
)

// PluginServer is the name Claude Code gives the plugin's MCP server
// (`claude mcp list` prints it), and pluginTools begins its tools' names:
// "plugin:<plugin>:<server>", with ':' made '_' in a tool's name.
const (
	PluginServer = "plugin:" + PluginName + ":" + mcpName
	pluginTools  = "mcp__plugin_" + PluginName + "_" + mcpName + "__"
)

// repoURL is the plugin's home page and repository.
const repoURL = "https://github.com/sotcomm/sotd"

const pluginAbout = "Mail between coding-agent sessions (sot-comm): the sotd hooks that wake a session for mail and hold its turn end, the sot-comm skill, and the sot-comm MCP server. Needs sotd on PATH."

// pluginSkill is the skill's file in the plugin.
const pluginSkill = "skills/" + skillName + "/SKILL.md"

// watchArgs is the `sotd hook` arguments of the plugin's SessionStart hook
// that names the re-arm file to watch (Watch).
const watchArgs = "watch"

// pluginSpecs are the plugin's hooks: Install's for Claude Code, with the
// guard on the plugin's tools and the re-arm watched by Watch's answer.
func pluginSpecs() []hookSpec {
	var out []hookSpec
	for _, sp := range specs[Claude] {
		switch {
		case sp.event == "PreToolUse":
			sp.matcher = "Bash|AskUserQuestion|" + pluginTools + ".*"
			sp.args += " --allow-mail"
		case sp.arm:
			sp.matcher = ArmName
		case sp.event == "SessionStart":
			out = append(out, hookSpec{event: sp.event, args: watchArgs})
		}
		out = append(out, sp)
	}
	return out
}

// PluginFiles is the plugin's files, by their slash path in PluginDir:
// its manifest, hooks, skill, MCP server and the comm-*.sh shims.
func PluginFiles() (map[string][]byte, error) {
	hooks, _, err := merge(nil, pluginSpecs(), "sotd", "hooks/hooks.json")
	if err != nil {
		return nil, err
	}
	manifest, err := render(object{
		{"name", quoted(PluginName)},
		{"description", quoted(pluginAbout)},
		{"author", quoted(map[string]string{"name": "sotcomm"})},
		{"homepage", quoted(repoURL)},
		{"repository", quoted(repoURL)},
		{"keywords", quoted([]string{"sot-comm", "mail", "agents", "hooks", "mcp"})},
	})
	if err != nil {
		return nil, err
	}
	mcp, err := render(object{{"mcpServers", quoted(map[string]any{mcpName: mcpEntry("sotd")})}})
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{
		".claude-plugin/plugin.json": manifest,
		"hooks/hooks.json":           hooks,
		".mcp.json":                  mcp,
		pluginSkill:                  skill(),
	}
	// Claude Code puts an enabled plugin's bin/ on its Bash tool's PATH, so a
	// session finds the shims there, as a row finds them in the comm home's.
	for _, sh := range shimVerbs {
		files[pluginBin+sh.name] = shim("sotd", sh.verb)
	}
	return files, nil
}

// pluginBin is the plugin's folder of programs.
const pluginBin = "bin/"

// PluginFileMode is the mode a plugin file is checked in with: the shims in
// bin/ runnable, as Claude Code copies them.
func PluginFileMode(name string) fs.FileMode {
	if strings.HasPrefix(name, pluginBin) {
		return binMode
	}
	return 0o644
}

// MarketplaceJSON is the marketplace manifest at MarketplacePath: the one
// plugin, from PluginDir.
func MarketplaceJSON() ([]byte, error) {
	return render(object{
		{"name", quoted(MarketplaceName)},
		{"owner", quoted(map[string]string{"name": "sotcomm"})},
		{"metadata", quoted(map[string]string{"description": "sotd's Claude Code plugin: mail between coding-agent sessions."})},
		{"plugins", quoted([]any{object{
			{"name", quoted(PluginName)},
			{"source", quoted("./" + PluginDir)},
			{"description", quoted(pluginAbout)},
			{"author", quoted(map[string]string{"name": "sotcomm"})},
			{"homepage", quoted(repoURL)},
		}})},
	})
}

// quoted is v as JSON; every value here marshals.
func quoted(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// pluginListing is Claude Code's record of the plugins it installed, beside
// the settings: installed_plugins.json in the config folder's plugins/.
func pluginListing(settings string) string {
	return filepath.Join(filepath.Dir(settings), "plugins", "installed_plugins.json")
}

// readPlugin reads the settings (root, of the file at file; shown as
// settings) for sotd's plugin enabled, Claude Code's listing for its folder,
// and judges its files against PluginFiles.
func readPlugin(root object, settings, file string) (PluginState, error) {
	st := PluginState{Listing: pluginListing(settings)}
	raw, ok := root.get("enabledPlugins")
	if !ok {
		return st, nil
	}
	var enabled map[string]any
	if json.Unmarshal(raw, &enabled) != nil {
		return st, fmt.Errorf(`%s: its "enabledPlugins" is not an object; fix it by hand`, file)
	}
	for _, id := range slices.Sorted(maps.Keys(enabled)) {
		if strings.HasPrefix(id, PluginName+"@") && enabled[id] == true {
			st.ID = id
			break
		}
	}
	if st.ID == "" {
		return st, nil
	}
	b, _, err := readFile(st.Listing)
	if err != nil || b == nil {
		return st, err
	}
	var listing struct {
		Plugins map[string][]struct {
			Scope       string `json:"scope"`
			InstallPath string `json:"installPath"`
		} `json:"plugins"`
	}
	if err := json.Unmarshal(b, &listing); err != nil {
		return st, fmt.Errorf("%s is not Claude Code's list of installed plugins (%v); reinstall the plugin with claude plugin install %s", st.Listing, err, st.ID)
	}
	for _, in := range listing.Plugins[st.ID] {
		if st.Dir == "" || in.Scope == "user" {
			st.Dir = in.InstallPath
		}
	}
	if st.Dir == "" {
		return st, nil
	}
	files, err := PluginFiles()
	if err != nil {
		return st, err
	}
	for name, p := range map[string]*Presence{"hooks/hooks.json": &st.Hooks, pluginSkill: &st.Skill, ".mcp.json": &st.MCP} {
		have, _, err := readFile(filepath.Join(st.Dir, filepath.FromSlash(name)))
		if err != nil {
			return st, err
		}
		*p = presence(have, files[name], have != nil)
	}
	return st, nil
}
