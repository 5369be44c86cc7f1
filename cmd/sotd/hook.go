package main

import (
	"flag"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/hooks"
)

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
	var codex, allowMail, detached bool
	rest, ok := flags("hook "+name, args[1:], stderr, func(fs *flag.FlagSet) {
		switch name {
		case "posttool":
			fs.BoolVar(&codex, "codex", false, "also clear the dialog a Codex PermissionRequest set")
		case "pretool":
			fs.BoolVar(&allowMail, "allow-mail", false, "allow the session's own mail commands (sotd's Claude Code plugin, which can carry no permission rules)")
		case "wait":
			fs.BoolVar(&codex, "codex", false, "start a plain Codex session's waiter, which queues the notice")
			fs.BoolVar(&detached, "detached", false, "be that waiter (sotd hook wait --codex starts it)")
		}
	})
	if !ok || len(rest) > 0 {
		return misused(rest)
	}
	run := map[string]func(hooks.Run) int{
		"stop":       hooks.Stop,
		"prompt":     hooks.Prompt,
		"pretool":    func(r hooks.Run) int { return hooks.PreTool(r, allowMail) },
		"posttool":   func(r hooks.Run) int { return hooks.PostTool(r, codex) },
		"permission": hooks.Permission,
		"wait":       waitHook(codex, detached),
		"watch":      hooks.Watch,
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
	verb := args[0]
	var claude, codex, noPerms, noTrust bool
	var settings string
	rest, ok := flags("hooks "+verb, args[1:], stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&claude, "claude", false, "Claude Code's hooks and skill")
		fs.BoolVar(&codex, "codex", false, "Codex's hooks and AGENTS.md section")
		fs.StringVar(&settings, "settings", "", "the settings file to edit")
		if verb == "install" {
			fs.BoolVar(&noPerms, "no-permissions", false, "add no rule that lets the agent run the mail verbs with no approval")
			fs.BoolVar(&noTrust, "no-trust", false, "record no trust in Codex's hooks: trust them yourself in Codex")
		}
	})
	// An install with no agent named is for each agent on PATH; an uninstall,
	// and --settings (one agent's file), name one.
	one := claude != codex
	if !ok || len(rest) > 0 || (!one && (verb == "uninstall" || claude || settings != "")) {
		if ok && len(rest) == 0 {
			fmt.Fprintf(stderr, "sotd hooks %s: give one of --claude or --codex\n", verb)
		}
		return usageErr(stderr, "hooks", rest)
	}
	agent := hooks.Claude
	if codex {
		agent = hooks.Codex
	}
	if verb == "uninstall" {
		return hooks.Uninstall{Agent: agent, Settings: settings, Out: stdout, Now: time.Now}.Run()
	}
	agents := []hooks.Agent{agent}
	if !one {
		if agents = agentsOnPath(stdout); len(agents) == 0 {
			fmt.Fprintln(stdout, "FAILED: no agent to install for; give --claude or --codex to install for one that is not on PATH")
			return hooks.ExitFailed
		}
	}
	code := hooks.ExitOK
	for _, a := range agents {
		if c := (hooks.Install{Agent: a, Settings: settings, NoPermissions: noPerms, NoTrust: noTrust, Out: stdout, Now: time.Now}).Run(); c != hooks.ExitOK {
			code = c
		}
	}
	return code
}

// agentsOnPath is the agents whose program is on PATH, in hooks.Agents'
// order; it says which it found and which not.
func agentsOnPath(out io.Writer) []hooks.Agent {
	var found []hooks.Agent
	for _, a := range hooks.Agents {
		if p, err := exec.LookPath(string(a)); err == nil {
			found = append(found, a)
			fmt.Fprintf(out, "found %s on PATH (%s): installing for it\n", a, p)
		} else {
			fmt.Fprintf(out, "not found on PATH: %s (sotd hooks install --%s installs for it anyway)\n", a, a)
		}
	}
	return found
}

// waitHook is the doorbell `sotd hook wait` runs: Claude Code's rewake
// waiter, or a plain Codex session's (--codex), which starts itself detached
// (--detached).
func waitHook(codex, detached bool) func(hooks.Run) int {
	switch {
	case detached:
		return hooks.WaitCodexDetached
	case codex:
		return hooks.WaitCodex
	}
	return hooks.Wait
}
