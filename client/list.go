package client

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// ListArgs is list's flags.
type ListArgs struct {
	JSON bool // an array, not a table
	All  bool // the stale entries too
}

// List prints the live agents of every box (net.list), judged on the box that
// holds each, with its box and a (me) marker: a table with a header, or with
// JSON an array; both carry the same fields. A registry keeps every handle
// that ever joined until someone removes it (sotd leave --stale-for), so the
// stale entries are counted, not listed, and a closing line says how many and
// that --all lists them; with All every entry is listed, live or stale. Then
// it says what of the network is not known now.
func (s *Session) List(a ListArgs) int {
	nl, err := s.listView(a.All)
	if err != nil {
		s.out("FAILED: the registry could not be read; nothing was listed")
		s.warn("sotd: %v", err)
		return ExitFailed
	}
	me, _ := s.Me()
	unknown := unknownLines(nl)
	stale := nl.Stale
	if !a.All {
		// A daemon older than NetListPage.Live, and the file, give every entry.
		n := len(nl.Entries)
		nl.Entries = slices.DeleteFunc(nl.Entries, func(e wire.ViewEntry) bool { return !e.Live })
		stale += n - len(nl.Entries)
	}
	if stale > 0 {
		unknown = append(unknown, staleLine(stale))
	}
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
	if a.JSON {
		b, _ := json.Marshal(rows)
		s.out("%s", b)
		for _, l := range unknown {
			s.warn("sotd: %s", l)
		}
		return ExitOK
	}
	switch {
	case len(rows) == 0 && stale > 0:
		s.out("no session is live")
	case len(rows) == 0:
		s.out("no agents have joined")
	default:
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

// staleLine is list's closing line for n stale entries left out.
func staleLine(n int) string {
	if n == 1 {
		return "1 stale entry not shown; sotd list --all shows it"
	}
	return fmt.Sprintf("%d stale entries not shown; sotd list --all shows them", n)
}

// listView is network for list, the live entries alone unless all. An
// unreadable registry lists nothing whoever answers: this account's daemon
// refuses net.list for one (it reads the file again whenever it changed), so
// its view stands for a read of the file, and the list costs what is live,
// not what the file holds; any other daemon's view is taken only once the file
// was checked, and with no daemon the file is read and decoded here.
func (s *Session) listView(all bool) (wire.NetList, error) {
	nl, own, why := s.netPages(!all)
	if why == nil && !own {
		if _, err := registry.ReadIndex(s.Home); err != nil {
			return wire.NetList{}, err
		}
	}
	if why == nil {
		return nl, nil
	}
	d, err := registry.Read(s.Home)
	if err != nil {
		return wire.NetList{}, err
	}
	return s.localNetwork(d, why), nil
}
