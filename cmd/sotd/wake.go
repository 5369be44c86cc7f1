package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sotcomm/sotd/wake"
)

func init() {
	verbs["wake"] = verb{"run the free-prompt test on a saved screen", `
usage: sotd wake check SCREENFILE [--windows]

Runs the wake's free-prompt test on a saved screen (text lines as the screen shows
them, then the trailer cols=C rows=R cursor=ROW,COL, and dim=… when cells are dim)
and prints "free", "holds the notice" (exit 0) or "not free: <reason>" (exit 1).
A file that is not a screen exits 2. --windows also accepts Claude Code's ">"
glyph and a bare glyph, as the wake does on Windows.`, runWake}
}

func runWake(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "check" {
		return usageErr(stderr, "wake", args)
	}
	var windows bool
	rest, ok := flags("wake check", args[1:], stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&windows, "windows", false, "read the screen as the wake does on Windows")
	})
	// The flag may follow the file, as the usage shows it.
	if ok && len(rest) == 2 && rest[1] == "--windows" {
		rest, windows = rest[:1], true
	}
	if !ok || len(rest) != 1 {
		return usageErr(stderr, "wake", rest)
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
	out, code := wake.CheckFile(r, windows)
	fmt.Fprintln(stdout, out)
	return code
}
