package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sotcomm/sotd/wake"
)

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
