package client

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// List prints every box's agents (net.list) with live/stale, judged on the box
// that holds each, its box and a (me) marker: a table with a header, or with
// asJSON an array; both carry the same fields. Then it says what of the network
// is not known now.
func (s *Session) List(asJSON bool) int {
	nl, err := s.listView()
	if err != nil {
		s.out("FAILED: the registry could not be read; nothing was listed")
		s.warn("sotd: %v", err)
		return ExitFailed
	}
	me, _ := s.Me()
	unknown := unknownLines(nl)
	type row struct {
		Handle    string   `json:"handle"`
		Live      bool     `json:"live"`
		Me        bool     `json:"me"`
		Host      string   `json:"host"`
		State     string   `json:"state"`
		Summary   string   `json:"summary"`
		Expertise []string `json:"expertise"`
		Box       string   `json:"box"` // the box whose registry holds it, where its liveness is judged
	}
	rows := make([]row, 0, len(nl.Entries))
	for _, e := range nl.Entries {
		rows = append(rows, row{e.Handle, e.Live, e.Handle == me, e.Box, e.State, e.Summary, append([]string{}, e.Expertise...), e.Box})
	}
	if asJSON {
		b, _ := json.Marshal(rows)
		s.out("%s", b)
		for _, l := range unknown {
			s.warn("sotd: %s", l)
		}
		return ExitOK
	}
	if len(rows) == 0 {
		s.out("no agents have joined")
	} else {
		tw := tabwriter.NewWriter(s.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "HANDLE\tLIVE\tBOX\tSTATE\tSUMMARY\tEXPERTISE")
		for _, r := range rows {
			mark, live := "", "stale"
			if r.Me {
				mark = " (me)"
			}
			if r.Live {
				live = "live"
			}
			fmt.Fprintf(tw, "@%s%s\t%s\t%s\t%s\t%s\t%s\n", shown(r.Handle), mark, live, shown(r.Box), shown(r.State),
				shown(r.Summary), shown(strings.Join(r.Expertise, ", ")))
		}
		tw.Flush()
	}
	for _, l := range unknown {
		s.out("%s", l)
	}
	return ExitOK
}

// shown is a table cell: "-" for nothing, else s escaped (printable), since
// most of a row is another box's words. A newline or tab in one would start a
// row or cell of its own (a forged "@alice (me)"), so a tab is escaped too.
func shown(s string) string {
	if s == "" {
		return "-"
	}
	return strings.ReplaceAll(printable(s, false), "\t", `\x09`)
}

// listView is network for list. The registry is checked whoever answers, so
// an unreadable one lists nothing; its rows are decoded here only when no
// daemon gives the view, which holds them already.
func (s *Session) listView() (wire.NetList, error) {
	if _, err := registry.ReadIndex(s.Home); err != nil {
		return wire.NetList{}, err
	}
	nl, why := s.netPages()
	if why == nil {
		return nl, nil
	}
	d, err := registry.Read(s.Home)
	if err != nil {
		return wire.NetList{}, err
	}
	return s.localNetwork(d, why), nil
}
