// Command sotd is the sot-comm daemon and client: `sotd serve` runs the daemon,
// every other verb is a client that prints the protocol's lines and exit codes.
// The verbs are listed in verbs.go; their bodies live in the packages they
// drive (client, daemon, doctor, hooks, ...), and this command parses flags.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sotcomm/sotd/client"
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		return runVersion(args[1:], stdin, stdout, stderr)
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if v, ok := lookup(args[1]); ok {
				printHelp(stdout, v)
				return 0
			}
		}
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	v, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "sotd: unknown verb %q\n", args[0])
		usage(stderr)
		return 2
	}
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || a == "-help" {
			printHelp(stdout, v)
			return 0
		}
	}
	return v.run(args[1:], stdin, stdout, stderr)
}

// usage is the top-level help: the verbs under their headings, their
// synopses in one column.
func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: sotd <verb> [args]   (sotd <verb> --help for one verb, sotd --version)")
	width := 0
	for _, v := range byName() {
		width = max(width, len(v.name))
	}
	for _, g := range verbs {
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for _, v := range g.verbs {
			fmt.Fprintf(w, "  %-*s  %s\n", width, v.name, v.synopsis)
		}
	}
}

func printHelp(w io.Writer, v verb) {
	fmt.Fprintf(w, "sotd %s — %s\n\n%s\n", v.name, v.synopsis, strings.TrimSpace(v.help))
}

// usageErr is a usage error: the arguments it did not expect, when there are
// some, then the verb's usage lines and where its full help is.
func usageErr(stderr io.Writer, name string, rest []string) int {
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "sotd %s: unexpected arguments %q\n", name, rest)
	}
	printUsage(stderr, name)
	return client.ExitUsage
}

// printUsage prints a verb's usage lines, the head of its help.
func printUsage(w io.Writer, name string) {
	v, _ := lookup(name)
	help := strings.TrimSpace(v.help)
	lines, _, _ := strings.Cut(help, "\n\n")
	fmt.Fprintf(w, "%s\n(sotd %s --help says more)\n", lines, name)
}

// flags parses a verb's flags; positional arguments come back. A flag it does
// not know is one line and the verb's usage, never the flag package's list.
func flags(name string, args []string, stderr io.Writer, def func(*flag.FlagSet)) ([]string, bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	def(fs)
	if err := fs.Parse(args); err != nil {
		msg := err.Error()
		if f, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
			msg = "unknown flag --" + strings.TrimPrefix(f, "-")
		}
		fmt.Fprintf(stderr, "sotd %s: %s\n", name, msg)
		return nil, false
	}
	return fs.Args(), true
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
