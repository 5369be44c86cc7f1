package doctor

import (
	"fmt"
	"strings"

	"github.com/sotcomm/sotd/hooks"
)

// pluginChecks is the Claude Code lines when settings.json enables sotd's
// plugin (hooks.PluginID): its hooks, skill and MCP server are the plugin's
// installed files, judged against what this sotd renders, and its hooks run
// the sotd on PATH (sotd, the command this sotd installs as: "sotd" when PATH
// finds this one). Hooks of an install beside the plugin's would each run twice.
func pluginChecks(st hooks.ClaudeState, sotd, bin string) []Check {
	p := st.Plugin
	named := fmt.Sprintf("the sot-comm plugin (%s)", p.ID)
	update := fmt.Sprintf("Run claude plugin marketplace update %s, then claude plugin update %s, and restart Claude Code.", marketplace(p.ID), p.ID)
	if p.Dir == "" {
		c := Check{Name: "claude hooks", Level: Warn, Fix: "Run claude plugin install " + p.ID + "."}
		c.Detail = fmt.Sprintf("%s is enabled in %s, but %s names no folder for it: Claude Code runs none of it", named, st.Settings, p.Listing)
		return []Check{c}
	}
	hooksLine := pluginPart("claude hooks", named, "hooks", p.Hooks, p.Dir, update)
	switch {
	case st.Hooks > 0 || len(st.Stale) > 0:
		hooksLine.Level = Warn
		hooksLine.Detail = fmt.Sprintf("sotd's hooks are both in %s and in %s: each runs twice", st.Settings, named)
		hooksLine.Fix = "Run sotd hooks uninstall --claude (the plugin brings the hooks, the skill and the server), then add the rules claude rules names."
	case hooksLine.Level == OK && sotd != "sotd":
		hooksLine.Level = Warn
		hooksLine.Detail = fmt.Sprintf("%s runs its hooks as sotd from PATH, which is not this sotd (%s)", named, sotd)
		hooksLine.Fix = "Put this sotd first on PATH (or install it where PATH finds sotd)."
	}
	mcp := pluginPart("claude mcp", named, "MCP server", p.MCP, p.Dir, update)
	if mcp.Level == OK {
		// Claude Code lists a plugin's server that runs what a registered one
		// runs under the registered one's name only.
		mcp = connects(bin, "sotd mcp", named, hooks.PluginServer, "sot-comm")
	}
	return []Check{hooksLine, pluginPart("claude skill", named, "skill", p.Skill, p.Dir, update), mcp, pluginRules(named, p, update)}
}

// pluginPart is the line of one of the plugin's installed files (what), as
// it stands against this sotd's.
func pluginPart(name, named, what string, is hooks.Presence, dir, update string) Check {
	c := Check{Name: name, Level: OK, Detail: fmt.Sprintf("%s in %s brings this sotd's %s", named, dir, what)}
	switch is {
	case hooks.Current:
		return c
	case hooks.Missing:
		c.Detail = fmt.Sprintf("%s in %s has no %s", named, dir, what)
	default:
		c.Detail = fmt.Sprintf("%s in %s brings another sotd's %s than this one's", named, dir, what)
	}
	c.Level, c.Fix = Warn, update
	return c
}

// pluginRules: a plugin cannot carry permission rules (Claude Code reads only
// "agent" and "subagentStatusLine" from a plugin's settings); the plugin's
// PreToolUse guard allows the session's own mail commands in their stead,
// when its hooks are this sotd's.
func pluginRules(named string, p hooks.PluginState, update string) Check {
	c := Check{Name: "claude rules", Level: OK, Detail: named + "'s PreToolUse hook lets a session's own mail commands and sot-comm tools run without a dialog"}
	if p.Hooks != hooks.Current {
		c.Level, c.Fix = Warn, update
		c.Detail = named + "'s hooks are not this sotd's, so whether they let the mail commands run without a dialog is unknown"
	}
	return c
}

// marketplace is the marketplace part of a plugin's id.
func marketplace(id string) string {
	_, m, _ := strings.Cut(id, "@")
	return m
}
