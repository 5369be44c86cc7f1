package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/wake"
)

func runWake(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "check" {
		return usageErr(stderr, "wake", args)
	}
	var windows, codex bool
	set := func(fs *flag.FlagSet) {
		fs.BoolVar(&windows, "windows", false, "read the screen as the wake does on Windows")
		fs.BoolVar(&codex, "codex", false, "read the screen as a Codex row's")
	}
	rest, ok := flags("wake check", args[1:], stderr, set)
	// The flags may follow the file, as the usage shows them.
	if ok && len(rest) > 1 {
		var more []string
		more, ok = flags("wake check", rest[1:], stderr, set)
		rest = append(rest[:1], more...)
	}
	if !ok || len(rest) != 1 {
		return usageErr(stderr, "wake", rest)
	}
	opt := wake.Options{Windows: windows}
	if codex {
		opt.Agent = rows.Codex
	}
	var r io.Reader = stdin
	if rest[0] != "-" {
		f, err := os.Open(rest[0])
		if err != nil {
			fmt.Fprintf(stderr, "sotd wake check: %v\n", err)
			return 2
		}
		defer f.Close()
		r = f
	}
	out, code := wake.CheckFile(r, opt)
	fmt.Fprintln(stdout, out)
	return code
}
