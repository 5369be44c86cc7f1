package client

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/sotcomm/sotd/registry"
)

// List prints every agent with live/stale and a (me) marker.
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
	if asJSON {
		type row struct {
			Handle string `json:"handle"`
			Live   bool   `json:"live"`
			Me     bool   `json:"me"`
			Host   string `json:"host"`
			State  string `json:"state"`
			Summ   string `json:"summary"`
		}
		rows := make([]row, 0, len(names))
		for _, n := range names {
			e := d.Agents[n]
			rows = append(rows, row{n, registry.Live(e.LastSeen, s.Now()), n == me, e.Host, e.State, e.Summary})
		}
		b, _ := json.Marshal(rows)
		s.out("%s", b)
		return ExitOK
	}
	if len(names) == 0 {
		s.out("no agents have joined")
		return ExitOK
	}
	tw := tabwriter.NewWriter(s.Stdout, 0, 4, 2, ' ', 0)
	for _, n := range names {
		e := d.Agents[n]
		live := "stale"
		if registry.Live(e.LastSeen, s.Now()) {
			live = "live"
		}
		mark := ""
		if n == me {
			mark = " (me)"
		}
		fmt.Fprintf(tw, "@%s%s\t%s\t%s\t%s\t%s\n", n, mark, live, e.Host, orDash(e.State), strings.Join(e.Expertise, ", "))
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
