package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/sotcomm/sotd/doctor"
)

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
