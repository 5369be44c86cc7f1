package main

// This file's name sorts after verbs.go on purpose: Go runs a package's init
// functions in file-name order, and verbs.go's init makes the verbs map.

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/hooks"
)

func init() {
	verbs["hook"] = verb{"answer a coding agent's hook (Claude Code, Codex)", `
usage: sotd hook stop|prompt|pretool|posttool [--codex]|permission

Reads the agent's hook JSON on stdin and answers on stdout as the agent expects.
  stop        Stop: holds the turn end with a block while unread mail waits, once
              per batch; stamps stop_at as it starts and "status stop" when the
              turn may end. A busy inbox is told, never held on.
  prompt      UserPromptSubmit: "status prompt user" (machine for the wake's notice);
              a subagent's (agent_id) stamps nothing.
  pretool     PreToolUse: AskUserQuestion marks the session blocked; inside a
              subagent (agent_id), a Bash command that runs a comm verb is denied,
              and so is one that cannot be parsed as bash to tell.
  posttool    PostToolUse: the heartbeat, re-stamping status_at and last_seen with
              one try at the registry lock, silent. --codex also clears the dialog
              a Codex PermissionRequest set ("resumed"). A subagent's stamps nothing.
  permission  Codex's PermissionRequest: "status dialog" with what it asks.
Exit 0, or 1 when the hook could not do its job; never 2, which would block the
agent's prompt or tool. "sotd hooks install" writes these into an agent's settings.`, runHook}
	verbs["hooks"] = verb{"install sotd's hooks and instructions into an agent's settings", `
usage: sotd hooks install|uninstall --claude|--codex [--settings PATH]

install adds sotd's hooks to Claude Code's settings.json ($CLAUDE_CONFIG_DIR or
~/.claude) or Codex's hooks.json ($CODEX_HOME or ~/.codex), merge-only: every
other key and hook stays. Beside it, it writes what teaches the agent sot-comm:
Claude Code's skill, skills/sot-comm/SKILL.md, or a marked section of Codex's
AGENTS.md (the rest of that file stays). Running it twice changes nothing.
Before the first change a settings file or AGENTS.md is kept as
<file>.bak.<time>. Prints what changed.

uninstall removes exactly those: sotd's hooks (every other hook and key stays;
a file unchanged since but for them gets its old bytes back from the backup),
the skill, or the AGENTS.md section.`, runHooks}
}

// runHook exits 1, not 2, on a usage error too: an agent reads a hook's 2 as
// "block", and a Stop hook that always blocks would hold every turn end.
func runHook(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	misused := func(rest []string) int {
		usageErr(stderr, "hook", rest)
		return hooks.ExitFailed
	}
	if len(args) == 0 {
		return misused(args)
	}
	name := args[0]
	var codex bool
	rest, ok := flags("hook "+name, args[1:], stderr, func(fs *flag.FlagSet) {
		if name == "posttool" {
			fs.BoolVar(&codex, "codex", false, "also clear the dialog a Codex PermissionRequest set")
		}
	})
	if !ok || len(rest) > 0 {
		return misused(rest)
	}
	run := map[string]func(hooks.Run) int{
		"stop":       hooks.Stop,
		"prompt":     hooks.Prompt,
		"pretool":    hooks.PreTool,
		"posttool":   func(r hooks.Run) int { return hooks.PostTool(r, codex) },
		"permission": hooks.Permission,
	}[name]
	if run == nil {
		return misused(args)
	}
	r := hooks.Run{In: stdin, Out: stdout, Err: stderr}
	r.Session, r.NoSession = client.NewSession(stderr, stderr)
	return run(r)
}

func runHooks(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "install" && args[0] != "uninstall") {
		return usageErr(stderr, "hooks", args)
	}
	var claude, codex bool
	var settings string
	rest, ok := flags("hooks "+args[0], args[1:], stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&claude, "claude", false, "Claude Code's hooks and skill")
		fs.BoolVar(&codex, "codex", false, "Codex's hooks and AGENTS.md section")
		fs.StringVar(&settings, "settings", "", "the settings file to edit")
	})
	if !ok || len(rest) > 0 || claude == codex {
		if ok && claude == codex {
			fmt.Fprintf(stderr, "sotd hooks %s: give one of --claude or --codex\n", args[0])
		}
		return usageErr(stderr, "hooks", rest)
	}
	agent := hooks.Claude
	if codex {
		agent = hooks.Codex
	}
	if args[0] == "uninstall" {
		return hooks.Uninstall{Agent: agent, Settings: settings, Out: stdout, Now: time.Now}.Run()
	}
	return hooks.Install{Agent: agent, Settings: settings, Out: stdout, Now: time.Now}.Run()
}
