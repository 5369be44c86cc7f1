// Command sotd is the sot-comm daemon and client: `sotd serve` runs the daemon,
// every other verb is a client that prints the protocol's lines and exit codes.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// verb is one subcommand: its synopsis, its help and what runs it.
type verb struct {
	synopsis string
	help     string
	run      func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// verbs is made before any init runs, so every file registers its verbs from its
// own init whatever the files' order.
var verbs = map[string]verb{}

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if v, ok := verbs[args[1]]; ok {
				printHelp(stdout, args[1], v)
				return 0
			}
		}
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	v, ok := verbs[args[0]]
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
			printHelp(stdout, args[0], v)
			return 0
		}
	}
	return v.run(args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: sotd <verb> [args]   (sotd <verb> --help for one verb)")
	names := make([]string, 0, len(verbs))
	for n := range verbs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s %s\n", n, verbs[n].synopsis)
	}
}

func printHelp(w io.Writer, name string, v verb) {
	fmt.Fprintf(w, "sotd %s — %s\n\n%s\n", name, v.synopsis, strings.TrimSpace(v.help))
}
