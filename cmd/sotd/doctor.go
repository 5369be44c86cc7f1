package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/sotcomm/sotd/doctor"
)

func init() {
	verbs["doctor"] = verb{"check this box's comm home and say how to fix what is wrong", `
usage: sotd doctor [--json]

Checks, each ok, warn or fail with the sentence that fixes it: the home's
modes (0700 folders, 0600 files), registry.json, the registry lock's holder,
the inbox-lock-manager record against this box's manager, hosts.toml and its
pins, the daemon's answer on this box's socket, the links it should hold, the
tools rows need, the clock, and the skew against each linked box's clock as
measured over its link. It changes nothing. Exit 0 when no check fails, else 1; --json prints
{"healthy", "checks": [{"name", "level", "detail", "fix"}]}.`, runDoctor}
}

func runDoctor(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var asJSON bool
	rest, ok := flags("doctor", args, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
	})
	if !ok || len(rest) > 0 {
		return usageErr(stderr, "doctor", rest)
	}
	env, err := doctor.Current()
	if err != nil {
		fmt.Fprintf(stderr, "sotd doctor: %v\n", err)
		return 1
	}
	r := doctor.Run(env)
	if asJSON {
		if err := r.WriteJSON(stdout); err != nil {
			fmt.Fprintf(stderr, "sotd doctor: %v\n", err)
			return 1
		}
	} else {
		r.WriteText(stdout)
	}
	if !r.Healthy {
		return 1
	}
	return 0
}
