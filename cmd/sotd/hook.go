package main

import (
	"flag"
	"fmt"
	"io"
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
		"wait":       hooks.Wait,
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
