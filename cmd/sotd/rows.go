package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/wire"
)

func runSpawn(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var req wire.WorkspaceSpawn
	argv, ok := flags("spawn", args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&req.Label, "label", "", "the row's label (default: the folder's name)")
		fs.StringVar(&req.Handle, "handle", "", "the comm handle the row's agent joins as")
		fs.StringVar(&req.Agent, "agent", "", "claude, codex or other (default: the one CMD names, else other)")
		fs.StringVar(&req.Cwd, "cwd", "", "the folder the agent runs in (default: this one)")
		fs.Var((*client.RowEnv)(&req.Env), "env", "K=V added to the row's environment (repeatable); K alone passes this shell's K, which keeps a secret off every command line")
	})
	if !ok || len(argv) == 0 {
		if ok {
			fmt.Fprintln(stderr, "sotd spawn: no command: give it after --")
		}
		return usageErr(stderr, "spawn", nil)
	}
	req.Argv = argv
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	return s.Spawn(req)
}

func runRun(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	argv, ok := flags("run", args, stderr, func(*flag.FlagSet) {})
	if !ok || len(argv) == 0 {
		if ok {
			fmt.Fprintln(stderr, "sotd run: no agent to run: give its command after --")
		}
		return usageErr(stderr, "run", nil)
	}
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	return s.Run(argv, os.Stdin, os.Environ())
}

func runDespawn(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return usageErr(stderr, "despawn", args)
	}
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	return s.Despawn(args[0])
}

func runAttach(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return usageErr(stderr, "attach", args)
	}
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	return s.Attach(args[0], os.Stdin)
}

func runRows(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "screen" {
		return runRowsScreen(args[1:], stdout, stderr)
	}
	var asJSON bool
	rest, ok := flags("rows", args, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print workspace.list's answer as JSON")
	})
	if !ok || len(rest) > 0 {
		return usageErr(stderr, "rows", rest)
	}
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	return s.Rows(asJSON)
}

func runRowsScreen(args []string, stdout, stderr io.Writer) int {
	var out string
	// The id may come before or after --out: parse, take one word, parse on.
	var rest []string
	for len(args) > 0 {
		var ok bool
		args, ok = flags("rows screen", args, stderr, func(fs *flag.FlagSet) {
			fs.StringVar(&out, "out", out, "save the screen to this file instead of printing it")
		})
		if !ok {
			return usageErr(stderr, "rows", nil)
		}
		if len(args) > 0 {
			rest, args = append(rest, args[0]), args[1:]
		}
	}
	if len(rest) != 1 {
		return usageErr(stderr, "rows", rest)
	}
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	return s.RowScreen(rest[0], out)
}
