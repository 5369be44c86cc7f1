package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/sotcomm/sotd/service"
)

func runService(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return usageErr(stderr, "service", args)
	}
	sub := args[0]
	var dry bool
	goos, bin := runtime.GOOS, ""
	rest, ok := flags("service "+sub, args[1:], stderr, func(fs *flag.FlagSet) {
		switch sub {
		case "install", "uninstall":
			fs.BoolVar(&dry, "dry-run", false, "print what would be written and run; change nothing")
		case "print":
			fs.StringVar(&goos, "os", goos, "the OS to print the file for: "+strings.Join(service.OSes, ", "))
			fs.StringVar(&bin, "bin", "", "sotd's full path on that OS; default this binary's")
		}
	})
	if !ok || len(rest) > 0 || !slices.Contains([]string{"install", "uninstall", "print"}, sub) {
		return usageErr(stderr, "service", rest)
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "sotd service %s: %v\n", sub, err)
		return 1
	}
	o := service.Options{DryRun: dry, Out: stdout, Stdin: stdin}
	if sub == "uninstall" {
		if err := service.Uninstall(o); err != nil {
			return fail(err)
		}
		return 0
	}
	spec, err := service.Current()
	if err != nil {
		return fail(err)
	}
	if sub == "install" {
		if err := service.Install(spec, o); err != nil {
			return fail(err)
		}
		return 0
	}
	if bin != "" {
		spec.Binary = bin
	}
	body, err := service.Render(goos, spec)
	if err != nil {
		return fail(err)
	}
	stdout.Write(body)
	return 0
}
