package doctor

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/sotcomm/sotd/hooks"
)

// TestedClaude are the Claude Code versions sotd's tests run the real agent
// under (integration's TestClaudeMailNeedsNoApproval and daemon's wake tests):
// their hooks, dialogs and permission rules are the ones sotd knows.
var TestedClaude = []string{"2.1.197", "2.1.332"}

// claudeWait bounds each claude command doctor runs: `claude mcp list` starts
// every MCP server to see it connect.
const claudeWait = 30 * time.Second

const claudeInstall = "Run sotd hooks install --claude."

// checkClaude is the Claude Code lines: sotd's hooks, the skill, the MCP
// server, the permission rules and the version. With nothing of sotd's
// installed it is one line, a warning when claude is on PATH (its sessions
// would get no wake, no held turn and no mail verbs without a dialog).
func checkClaude(e Env) []Check {
	bin, _ := e.LookPath("claude")
	version := checkClaudeVersion(e, bin)
	if e.ClaudeSettings == "" {
		return []Check{{Name: "claude hooks", Level: OK, Detail: "not checked: Claude Code's config folder is unknown (no CLAUDE_CONFIG_DIR and no home folder)"}, version}
	}
	st, err := hooks.ReadClaude(e.Home, e.ClaudeSettings, e.Sotd)
	if err != nil {
		return []Check{{Name: "claude hooks", Level: Warn, Detail: fmt.Sprintf("what of sotd Claude Code has is unknown: %v", err),
			Fix: "Fix the file named, then run sotd doctor again."}, version}
	}
	if st.Plugin.ID != "" {
		sotd := e.Sotd
		if sotd == "" {
			sotd, _ = hooks.SotdCommand()
		}
		return append(pluginChecks(st, sotd, bin), version)
	}
	if st.Hooks == 0 && len(st.Stale) == 0 && st.SkillIs != hooks.Current && st.SkillIs != hooks.Outdated && st.MCP == "" && len(st.Rules) == len(hooks.PermissionRules()) {
		c := Check{Name: "claude hooks", Level: OK, Detail: fmt.Sprintf("no sotd hook in %s (sotd hooks install --claude adds them for Claude Code sessions)", st.Settings)}
		if bin != "" {
			c.Level = Warn
			c.Detail = fmt.Sprintf("Claude Code is on PATH (%s), but nothing of sotd is installed in %s: its sessions are not woken by mail, and ask before each mail command", bin, st.Settings)
			c.Fix = claudeInstall
		}
		return []Check{c, version}
	}
	return []Check{claudeHooks(st), claudeSkill(st), checkClaudeMCP(st, bin), claudeRules(st), version}
}

// claudeHooks: each of sotd's hooks is in settings.json and runs this sotd.
func claudeHooks(st hooks.ClaudeState) Check {
	c := Check{Name: "claude hooks", Level: OK, Detail: fmt.Sprintf("%d sotd hooks in %s, each running this sotd", st.Hooks, st.Settings)}
	var bad []string
	if len(st.Missing) > 0 {
		bad = append(bad, "missing: "+strings.Join(st.Missing, ", "))
	}
	if len(st.Stale) > 0 {
		bad = append(bad, "running another sotd or on other tools: "+strings.Join(st.Stale, "; "))
	}
	if len(bad) > 0 {
		c.Level = Warn
		c.Detail = fmt.Sprintf("%d of sotd's hooks in %s run this sotd; %s", st.Hooks, st.Settings, strings.Join(bad, "; "))
		c.Fix = claudeInstall
	}
	return c
}

// claudeSkill: the skill that teaches Claude Code sot-comm is this sotd's.
func claudeSkill(st hooks.ClaudeState) Check {
	c := Check{Name: "claude skill", Level: OK, Detail: fmt.Sprintf("the sot-comm skill in %s is this sotd's", st.Skill)}
	switch st.SkillIs {
	case hooks.Current:
		return c
	case hooks.Missing:
		c.Detail = fmt.Sprintf("no sot-comm skill at %s: Claude Code sessions are not taught the mail verbs", st.Skill)
		c.Fix = claudeInstall
	case hooks.Outdated:
		c.Detail = fmt.Sprintf("the sot-comm skill in %s is an older sotd's", st.Skill)
		c.Fix = claudeInstall
	default:
		c.Detail = fmt.Sprintf("%s is another skill than sotd's, under its name", st.Skill)
		c.Fix = "Move that skill's folder aside, then run sotd hooks install --claude."
	}
	c.Level = Warn
	return c
}

// checkClaudeMCP: sot-comm is registered as this sotd's `mcp`, and connects
// when claude on PATH can say.
func checkClaudeMCP(st hooks.ClaudeState, bin string) Check {
	c := Check{Name: "claude mcp", Level: Warn}
	switch {
	case st.MCP == "":
		c.Detail = fmt.Sprintf("no MCP server sot-comm in %s: Claude Code sessions have no mail tools", st.JSON)
		c.Fix = claudeInstall
		return c
	case !st.MCPIsOurs:
		c.Detail = fmt.Sprintf("the MCP server sot-comm in %s runs %q, not this sotd's mcp", st.JSON, st.MCP)
		c.Fix = claudeInstall
		return c
	}
	return connects(bin, st.MCP, st.JSON, "sot-comm")
}

// connects is the claude mcp line of the server Claude Code lists under one
// of names, which runs the command line runs as registered in where: whether
// `claude mcp list`, run as bin, says it connects.
func connects(bin, runs, where string, names ...string) Check {
	c := Check{Name: "claude mcp", Level: Warn}
	if bin == "" {
		c.Level, c.Detail = OK, fmt.Sprintf("sot-comm runs %s in %s (whether it connects is not checked: claude is not on PATH)", runs, where)
		return c
	}
	out, err := runClaude(bin, "mcp", "list")
	var line string
	for _, l := range strings.Split(out, "\n") {
		for _, name := range names {
			if strings.HasPrefix(l, name+": ") {
				line = l
			}
		}
	}
	switch {
	case line == "":
		c.Detail = fmt.Sprintf("sot-comm runs %s in %s, but claude mcp list does not name it (%s)", runs, where, said(out, err))
		c.Fix = "Run claude mcp list to see what Claude Code reads, and check CLAUDE_CONFIG_DIR names the folder sotd installed into."
	case strings.Contains(line, "Connected"):
		c.Level, c.Detail = OK, fmt.Sprintf("sot-comm runs %s and connects (claude mcp list)", runs)
	default:
		_, status, _ := strings.Cut(line, " - ")
		c.Detail = fmt.Sprintf("sot-comm runs %s but does not connect: %s", runs, strings.TrimSpace(status))
		c.Fix = "Run " + runs + " by hand to see why it does not start (it waits on stdin when it does), fix that, and run sotd doctor again."
	}
	return c
}

// claudeRules: the rules that let Claude Code run the mail verbs without a dialog.
func claudeRules(st hooks.ClaudeState) Check {
	c := Check{Name: "claude rules", Level: OK, Detail: fmt.Sprintf("%s allows the mail verbs, their shims and the sot-comm tools without a dialog", st.Settings)}
	if len(st.Rules) == 0 {
		return c
	}
	lacks := strings.Join(st.Rules, ", ")
	if len(st.Rules) == len(hooks.PermissionRules()) {
		lacks = "every rule of sotd's (" + st.Rules[0] + ", ...)"
	}
	c.Level = Warn
	c.Detail = fmt.Sprintf("%s lacks %s: Claude Code asks a person before those mail commands, and a row woken by mail waits at that dialog", st.Settings, lacks)
	c.Fix = claudeInstall + " (An install with --no-permissions leaves them out on purpose.)"
	return c
}

// checkClaudeVersion: claude on PATH is a version sotd is tested with.
func checkClaudeVersion(e Env, bin string) Check {
	c := Check{Name: "claude version", Level: OK}
	tested := strings.Join(TestedClaude, " and ")
	if bin == "" {
		c.Detail = "claude is not on PATH, so its version is not checked"
		return c
	}
	out, err := runClaude(bin, "--version")
	v, _, _ := strings.Cut(strings.TrimSpace(out), " ")
	switch {
	case err != nil || v == "":
		c.Level, c.Detail = Warn, fmt.Sprintf("%s --version did not say (%s)", bin, said(out, err))
		c.Fix = "Check that " + bin + " runs."
	case slices.Contains(TestedClaude, v):
		c.Detail = fmt.Sprintf("Claude Code %s (%s), a version sotd is tested with", v, bin)
	default:
		c.Level = Warn
		c.Detail = fmt.Sprintf("Claude Code %s (%s) is not a version sotd is tested with (%s): its dialogs, hooks and rules may differ", v, bin, tested)
		c.Fix = fmt.Sprintf("Install a tested one (npm install -g @anthropic-ai/claude-code@%s), or watch its rows for dialogs sotd does not answer.", TestedClaude[len(TestedClaude)-1])
	}
	return c
}

// runClaude runs claude with args, bounded by claudeWait, and returns its output.
func runClaude(bin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), claudeWait)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("no answer within %v", claudeWait)
	}
	return string(out), err
}

// said is a command's last output line, or its error.
func said(out string, err error) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
		return last
	}
	if err != nil {
		return err.Error()
	}
	return "it printed nothing"
}
