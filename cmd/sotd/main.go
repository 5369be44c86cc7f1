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

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: sotd <verb> [args]   (sotd <verb> --help for one verb)")
	for _, v := range byName() {
		fmt.Fprintf(w, "  %-11s %s\n", v.name, v.synopsis)
	}
}

func printHelp(w io.Writer, v verb) {
	fmt.Fprintf(w, "sotd %s — %s\n\n%s\n", v.name, v.synopsis, strings.TrimSpace(v.help))
}

// usageErr prints a verb's help on stderr, after the arguments it did not
// expect, and is the usage exit code.
func usageErr(stderr io.Writer, name string, rest []string) int {
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "sotd %s: unexpected arguments %q\n", name, rest)
	}
	v, _ := lookup(name)
	printHelp(stderr, v)
	return client.ExitUsage
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

// session opens the client side or says why it cannot.
func session(stdout, stderr io.Writer) (*client.Session, int) {
	s, err := client.NewSession(stdout, stderr)
	if err != nil {
		fmt.Fprintf(stdout, "FAILED: %v\n", err)
		return nil, client.ExitFailed
	}
	return s, 0
}
