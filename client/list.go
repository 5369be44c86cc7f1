package client

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/sotcomm/sotd/registry"
)

// List prints every agent with live/stale and a (me) marker: a table with a
// header, or with asJSON an array. Both carry the same fields.
func (s *Session) List(asJSON bool) int {
	d, err := registry.Read(s.Home)
	if err != nil {
		s.out("FAILED: the registry could not be read; nothing was listed")
		s.warn("sotd: %v", err)
		return ExitFailed
	}
	me, _ := s.Me()
	names := make([]string, 0, len(d.Agents))
	for n := range d.Agents {
		names = append(names, n)
	}
	sort.Strings(names)
	type row struct {
		Handle    string   `json:"handle"`
		Live      bool     `json:"live"`
		Me        bool     `json:"me"`
		Host      string   `json:"host"`
		State     string   `json:"state"`
		Summary   string   `json:"summary"`
		Expertise []string `json:"expertise"`
	}
	rows := make([]row, 0, len(names))
	for _, n := range names {
		e := d.Agents[n]
		rows = append(rows, row{n, registry.Live(e.LastSeen, s.Now()), n == me, e.Host, e.State, e.Summary, append([]string{}, e.Expertise...)})
	}
	if asJSON {
		b, _ := json.Marshal(rows)
		s.out("%s", b)
		return ExitOK
	}
	if len(rows) == 0 {
		s.out("no agents have joined")
		return ExitOK
	}
	tw := tabwriter.NewWriter(s.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HANDLE\tLIVE\tHOST\tSTATE\tSUMMARY\tEXPERTISE")
	for _, r := range rows {
		mark, live := "", "stale"
		if r.Me {
			mark = " (me)"
		}
		if r.Live {
			live = "live"
		}
		fmt.Fprintf(tw, "@%s%s\t%s\t%s\t%s\t%s\t%s\n", r.Handle, mark, live, r.Host, orDash(r.State),
			orDash(printable(r.Summary, false)), orDash(printable(strings.Join(r.Expertise, ", "), false)))
	}
	tw.Flush()
	return ExitOK
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
