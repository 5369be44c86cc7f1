package main

import (
	"flag"
	"io"
	"strings"
)

func init() {
	verbs["sent"] = verb{"show the lines this session sent and whether each was read", `
usage: sotd sent [@handle] [--json]

Lists the last 20 lines this session sent into each inbox (or only @handle's),
with "read" once the receiver's cursor is past the line. This box's daemon
asks every linked box too (a guest its hub, the hub the other boxes), and a
box column appears when more than one box holds the lines; a box that gave no
answer in time is named on a note line. With no daemon answering, only this
home's inboxes are read, and stderr says so.`, runSent}
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
