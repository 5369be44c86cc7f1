package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sotcomm/sotd/client"
)

func init() {
	for name, v := range map[string]verb{
		"serve": {"run the daemon in the foreground", `
usage: sotd serve [--http ADDR]

Runs the daemon on $SOT_COMM_HOME (default ~/.sot-comm). With no hosts.toml it is
a standalone hub. It listens on run/<host>/sotd.sock in the home ($SOT_SOCKET
overrides) and stops cleanly on SIGTERM or SIGINT. The status page listens on
the loopback address it last did, else a port chosen from the home's path
(--http ADDR picks one, --http off serves none); "sotd url" prints its address.`, runServe},
		"join": {"join the registry under this session's handle", `
usage: sotd join [--name N] [--expertise "a, b"] [--repin]

The handle is derived from the project folder and this box's name unless --name
or $SOT_COMM_NAME gives one. Exit 3 when the self slot names another project
(--repin re-pins it) or a row holds the named handle.`, runJoin},
		"send": {"file a message into another session's inbox", `
usage: sotd send @handle 'message'
       sotd send @handle --file PATH|-
       sotd send --broadcast 'message'

Prints "filed -> @handle" (exit 0) or "FAILED -> @handle: <reason>" (exit 1).
The recipient is only the first positional @arg; the message may itself begin
with @. --file reads the body whole from PATH, or stdin for -.`, runSend},
		"poll": {"show new mail and move the read cursor past it", `
usage: sotd poll [--json]

Shows the inbox lines past this session's cursor, then advances it. Exit 75
when the inbox is being written: nothing was read; try again.`, runPoll},
		"list": {"list every agent, live or stale", `
usage: sotd list [--json]

All agents with live/stale and a (me) marker.`, runList},
		"leave": {"remove this session (or an orphan) from the registry", `
usage: sotd leave [--name HANDLE]

Removes this session's entry and self file, or with --name an orphan entry
(registry only). A handle a row holds is refused.`, runLeave},
		"status": {"declare or record this session's work-state", `
usage: sotd status [--json] [<verb> ["text"]]

Events: prompt, stop, dialog "T", resumed, join (a silent no-op in a session
that has not joined). Declarations: working ["note"], idle ["note"],
blocked "question", waiting "for what", done ["note"] (exit 1 when not joined).
With no verb it prints this session's work-state and unread count; --json
prints it as one object (after the write, when a verb is given).`, runStatus},
		"lock-clear": {"clear a registry lock whose holder this box proves dead", `
usage: sotd lock-clear

Clears .registry.lock only when its holder is proved dead from this box; a
holder that may be alive is never forced, and the refusal names the recovery.`, runLockClear},
	} {
		verbs[name] = v
	}
}

// session opens the client side or says why it cannot.
func session(stdout, stderr io.Writer) (*client.Session, int) {
	s, err := client.NewSession(stdout, stderr)
	if err != nil {
		fmt.Fprintf(stdout, "FAILED: %v\n", err)
		return nil, client.ExitFailed
	}
	return s, 0
}

// flags parses a verb's flags; positional arguments come back.
func flags(name string, args []string, stderr io.Writer, def func(*flag.FlagSet)) ([]string, bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	def(fs)
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "sotd %s --help shows the usage\n", name)
		return nil, false
	}
	return fs.Args(), true
}

func runJoin(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var a client.JoinArgs
	rest, ok := flags("join", args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&a.Name, "name", "", "join as this handle")
		fs.StringVar(&a.Expertise, "expertise", "", `comma-separated expertise, "a, b"`)
		fs.BoolVar(&a.Repin, "repin", false, "re-pin a self slot that names another project")
	})
	if !ok || len(rest) > 0 {
		return usageErr(stderr, "join", rest)
	}
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	return s.Join(a)
}

func runSend(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a, file, err := parseSend(args)
	if err != nil {
		fmt.Fprintf(stderr, "sotd send: %v\nusage: sotd send @handle 'message' | @handle --file PATH|- | --broadcast 'message'\n", err)
		return client.ExitUsage
	}
	label := "@" + a.To
	if a.Broadcast {
		label = "@*"
	}
	if file != "" {
		body, err := client.ReadBody(file, stdin)
		if err != nil {
			fmt.Fprintf(stdout, "FAILED -> %s: %v; nothing was sent\n", label, err)
			return client.ExitFailed
		}
		a.Text = body
	}
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	return s.Send(a)
}

// parseSend reads send's arguments by hand: only the first positional @arg is the
// recipient, and everything after it is the message, even words that begin with
// @ or look like flags.
func parseSend(args []string) (a client.SendArgs, file string, err error) {
	var words []string
	haveTo := false
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case len(words) > 0 || (haveTo && file != ""):
			words = append(words, arg)
		case arg == "--broadcast" && !haveTo && !a.Broadcast:
			a.Broadcast = true
		case arg == "--file" && file == "":
			if i+1 >= len(args) {
				return a, "", fmt.Errorf("--file needs a PATH or -")
			}
			i++
			file = args[i]
		case strings.HasPrefix(arg, "--file="):
			file = strings.TrimPrefix(arg, "--file=")
		case arg == "--":
			words = append(words, args[i+1:]...)
			i = len(args)
		case !haveTo && !a.Broadcast && strings.HasPrefix(arg, "@"):
			a.To = strings.TrimPrefix(arg, "@")
			haveTo = true
		case !haveTo && !a.Broadcast:
			return a, "", fmt.Errorf("the first argument must be the recipient, @handle (got %q)", arg)
		default:
			words = append(words, arg)
		}
	}
	switch {
	case !haveTo && !a.Broadcast:
		return a, "", fmt.Errorf("no recipient: name one as @handle, or use --broadcast")
	case a.Broadcast && file == "" && len(words) == 0, haveTo && file == "" && len(words) == 0:
		return a, "", fmt.Errorf("no message: give it as an argument or with --file")
	case file != "" && len(words) > 0:
		return a, "", fmt.Errorf("give the message as arguments or with --file, not both")
	}
	a.Text = strings.Join(words, " ")
	return a, file, nil
}

// jsonVerb runs a verb whose one flag is --json.
func jsonVerb(name, help string, call func(*client.Session, bool) int) func([]string, io.Reader, io.Writer, io.Writer) int {
	return func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
		var asJSON bool
		rest, ok := flags(name, args, stderr, func(fs *flag.FlagSet) {
			fs.BoolVar(&asJSON, "json", false, help)
		})
		if !ok || len(rest) > 0 {
			return usageErr(stderr, name, rest)
		}
		s, code := session(stdout, stderr)
		if s == nil {
			return code
		}
		return call(s, asJSON)
	}
}

var (
	runPoll = jsonVerb("poll", "print the raw inbox lines", (*client.Session).Poll)
	runList = jsonVerb("list", "print JSON", (*client.Session).List)
)

func runLeave(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var name string
	rest, ok := flags("leave", args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "", "remove this orphan handle instead of this session")
	})
	if !ok || len(rest) > 0 {
		return usageErr(stderr, "leave", rest)
	}
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	return s.Leave(strings.TrimPrefix(name, "@"))
}

func runStatus(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var asJSON bool
	rest, ok := flags("status", args, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print the work-state as JSON")
	})
	if !ok || len(rest) > 2 {
		return usageErr(stderr, "status", rest)
	}
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	if len(rest) == 0 {
		return s.ShowStatus(asJSON)
	}
	text := ""
	if len(rest) == 2 {
		text = rest[1]
	}
	return s.Status(rest[0], text, len(rest) == 2, asJSON)
}

func runLockClear(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return usageErr(stderr, "lock-clear", args)
	}
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	return s.LockClear()
}

func usageErr(stderr io.Writer, name string, rest []string) int {
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "sotd %s: unexpected arguments %q\n", name, rest)
	}
	printHelp(stderr, name, verbs[name])
	return client.ExitUsage
}
