package client

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/registry"
)

// SentMax is how many recent lines per receiver `sotd sent` shows.
const SentMax = 20

// Sent shows the lines this session sent recently into the inboxes this home
// holds (to, or every listed handle), and whether each has been read: the
// receiver's cursor is past it.
func (s *Session) Sent(to string, asJSON bool) int {
	me, err := s.Me()
	if err != nil {
		s.out("FAILED: %v; nothing was listed", err)
		return ExitFailed
	}
	targets := []string{to}
	if to == "" {
		d, err := registry.Read(s.Home)
		if err != nil {
			s.out("FAILED: the registry could not be read; nothing was listed")
			s.warn("sotd: %v", err)
			return ExitFailed
		}
		targets = targets[:0]
		for h := range d.Agents {
			if h != me {
				targets = append(targets, h)
			}
		}
		sort.Strings(targets)
	}
	var all []filer.Receipt
	f := filer.New(s.Home)
	for _, h := range targets {
		rs, err := f.Receipts(h, me, SentMax)
		if err != nil {
			s.out("FAILED: %v; nothing was listed", err)
			return ExitFailed
		}
		for _, r := range rs {
			r.To = h // a broadcast copy is filed with an empty to
			all = append(all, r)
		}
	}
	if asJSON {
		b, _ := json.Marshal(all)
		s.out("%s", b)
		return ExitOK
	}
	if len(all) == 0 {
		s.out("@%s has sent nothing that an inbox here still holds", me)
		return ExitOK
	}
	tw := tabwriter.NewWriter(s.Stdout, 0, 4, 2, ' ', 0)
	for _, r := range all {
		state := "unread"
		if r.Read {
			state = "read"
		}
		fmt.Fprintf(tw, "@%s\t%s\t%s\t%s\n", r.To, r.TS, state, summary(r.Msg))
	}
	tw.Flush()
	return ExitOK
}

// summary is a message's first line, cut to 60 characters.
func summary(msg string) string {
	line, _, cut := strings.Cut(msg, "\n")
	if r := []rune(line); len(r) > 60 {
		return string(r[:60]) + "…"
	} else if cut {
		return line + " …"
	}
	return line
}
