package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sotcomm/sotd/client"
)

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
		fmt.Fprintf(stderr, "sotd send: %v\n", err)
		printUsage(stderr, "send")
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
// @ or look like flags. --reply-to and --file go before the message.
func parseSend(args []string) (a client.SendArgs, file string, err error) {
	var words []string
	haveTo := false
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case len(words) > 0:
			words = append(words, arg)
		case arg == "--reply-to" && a.ReplyTo == "":
			if i+1 >= len(args) || args[i+1] == "" {
				return a, "", fmt.Errorf("--reply-to needs the id of the line it answers (poll shows it as id XXXXXXXX)")
			}
			i++
			a.ReplyTo = args[i]
		case strings.HasPrefix(arg, "--reply-to=") && a.ReplyTo == "":
			if a.ReplyTo = strings.TrimPrefix(arg, "--reply-to="); a.ReplyTo == "" {
				return a, "", fmt.Errorf("--reply-to needs the id of the line it answers (poll shows it as id XXXXXXXX)")
			}
		case haveTo && file != "":
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

func runLog(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var a client.LogArgs
	var since string
	// @handle may come before the flags or after them.
	if len(args) > 0 && strings.HasPrefix(args[0], "@") {
		a.With, args = strings.TrimPrefix(args[0], "@"), args[1:]
	}
	rest, ok := flags("log", args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&since, "since", "", "only lines filed since this age or time")
		fs.StringVar(&a.Grep, "grep", "", "only lines whose message holds this text")
		fs.BoolVar(&a.JSON, "json", false, "print one JSON array")
	})
	if ok && len(rest) == 1 && a.With == "" && strings.HasPrefix(rest[0], "@") {
		a.With, rest = strings.TrimPrefix(rest[0], "@"), nil
	}
	if !ok || len(rest) > 0 {
		return usageErr(stderr, "log", rest)
	}
	if since != "" {
		var err error
		if a.Since, err = client.ParseSince(since, time.Now()); err != nil {
			fmt.Fprintf(stderr, "sotd log: --since %v\n", err)
			return client.ExitUsage
		}
	}
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	return s.Log(a)
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
)

func runList(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var a client.ListArgs
	rest, ok := flags("list", args, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&a.JSON, "json", false, "print JSON")
		fs.BoolVar(&a.All, "all", false, "list the stale entries too")
	})
	if !ok || len(rest) > 0 {
		return usageErr(stderr, "list", rest)
	}
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	return s.List(a)
}

func runLeave(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var name, stale string
	rest, ok := flags("leave", args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "", "remove this orphan handle instead of this session")
		fs.StringVar(&stale, "stale-for", "", "remove every entry stale for at least this age (30d, 12h) that no row holds")
	})
	if !ok || len(rest) > 0 || (name != "" && stale != "") {
		return usageErr(stderr, "leave", rest)
	}
	var age time.Duration
	if stale != "" {
		var err error
		if age, err = client.ParseAge(stale); err != nil {
			fmt.Fprintf(stderr, "sotd leave: --stale-for %v\n", err)
			return client.ExitUsage
		}
	}
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	if stale != "" {
		return s.Prune(age)
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
	return s.Declare(rest[0], text, len(rest) == 2, asJSON)
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
func runSent(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var asJSON bool
	rest, ok := flags("sent", args, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print JSON")
	})
	if ok && len(rest) == 2 && rest[1] == "--json" {
		rest, asJSON = rest[:1], true
	}
	if !ok || len(rest) > 1 || (len(rest) == 1 && !strings.HasPrefix(rest[0], "@")) {
		return usageErr(stderr, "sent", rest)
	}
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	to := ""
	if len(rest) == 1 {
		to = strings.TrimPrefix(rest[0], "@")
	}
	return s.Sent(to, asJSON)
}
