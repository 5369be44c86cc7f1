package client

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/topology"
	"github.com/sotcomm/sotd/wire"
)

// netWait bounds the daemon's answer to net.list: it reads memory and one
// registry, so a daemon that takes longer is as good as absent.
const netWait = 3 * time.Second

// network is every box's sessions as this box's daemon knows them (net.list):
// this box's registry, judged now, and the other boxes' entries as the hub
// last said. With no daemon answering it is this box's registry alone, and
// the rest is unknown when hosts.toml names a hub elsewhere.
func (s *Session) network(d *registry.Doc) wire.NetList {
	nl, _, err := s.netPages(false)
	if err == nil {
		return nl
	}
	return s.localNetwork(d, err)
}

// localNetwork is network with no daemon answering (why): d alone.
func (s *Session) localNetwork(d *registry.Doc, why error) wire.NetList {
	live := registry.LiveAt(s.Now())
	nl := wire.NetList{Box: s.Host, Known: true, Entries: []wire.ViewEntry{}}
	for _, h := range slices.Sorted(maps.Keys(d.Agents)) {
		e := d.Agents[h]
		box := e.Host
		if box == "" {
			box = s.Host
		}
		nl.Entries = append(nl.Entries, wire.ViewEntry{Handle: h, Box: box, Repo: e.Repo, Expertise: e.Expertise, LastSeen: e.LastSeen,
			Live: live.Live(e.LastSeen), State: e.State, Summary: e.Summary, StatusAt: e.StatusAt})
	}
	if hub := s.hubElsewhere(); hub != "" {
		nl.Known, nl.Hub = false, hub
		nl.Why = fmt.Sprintf("this box's daemon did not answer (%v)", why)
	}
	return nl
}

// netPages asks this box's daemon for the whole view, page by page (a view
// past a frame comes as several), and joins them: the first page's account of
// the boxes, every page's entries. A daemon whose next page would not move on
// past the last is not asked again. live asks for the live entries alone
// (NetListPage.Live); own says every page came from a daemon of this account,
// whose word on this home's registry may stand for a read of it.
func (s *Session) netPages(live bool) (nl wire.NetList, own bool, err error) {
	page := wire.NetListPage{Live: live}
	own = true
	for {
		var p wire.NetList
		mine, err := s.callDaemonOwn(netWait, wire.OpNetList, page, &p)
		if err != nil {
			return nl, false, err
		}
		own = own && mine
		if page.After == "" {
			nl = p
		} else {
			nl.Entries = append(nl.Entries, p.Entries...)
		}
		if p.Next <= page.After {
			nl.Next = ""
			return nl, own, nil
		}
		page.After = p.Next
	}
}

// hubElsewhere is the hub hosts.toml names when it is not this box, else "".
func (s *Session) hubElsewhere() string {
	path, err := topology.Path()
	if err != nil {
		return ""
	}
	t, _, err := topology.Load(path)
	if err != nil || t.Hub == "" || t.IsHub(s.Host) {
		return ""
	}
	return t.Hub
}

// unknownLines say what of the network this box does not know: the boxes whose
// link is down, and all the others while the hub is out of reach. Each line is
// escaped (printable): a box's name and why its link closed are the hub's and
// that box's words.
func unknownLines(nl wire.NetList) []string {
	if !nl.Known {
		since := "it has not been known since this daemon started"
		if nl.AsOf != "" {
			since = "last known at " + nl.AsOf
		}
		hub := nl.Hub
		if hub == "" {
			hub = "the hub"
		}
		return []string{printable(fmt.Sprintf("other boxes: unknown — %s is out of reach (%s); %s", hub, nl.Why, since), false)}
	}
	var out []string
	for _, l := range nl.HubLinks {
		if l.Up {
			continue
		}
		line := fmt.Sprintf("hub %s: this box's link to it is down since %s", l.Box, l.Since)
		if l.LastError != "" {
			line += " (" + l.LastError + ")"
		}
		out = append(out, printable(line+"; mail goes through the other hubs", false))
	}
	for _, b := range nl.Boxes {
		if b.Up {
			continue
		}
		line := fmt.Sprintf("box %s: unknown — its link is down", b.Box)
		if b.Since != "" {
			line += " since " + b.Since
		}
		if b.Reason != "" {
			line += " (" + b.Reason + ")"
		}
		out = append(out, printable(line, false))
	}
	return out
}
