package topology

import (
	"slices"
	"sort"
)

// Topology is a parsed, validated hosts.toml.
type Topology struct {
	Hub string // the first hub's box name: the only one, for hub = "<box>"
	// Hubs names every hub, in the file's order: [Hub] for hub = "<box>",
	// the list for hubs = [...]. A Topology built in code with only Hub set
	// has the one hub.
	Hubs    []string
	HubLine int // the line of hub = … or hubs = […], for messages; 0 when not from a file
	Hosts   map[string]Host
}

// Host is one [host.<name>] table.
type Host struct {
	Name     string
	Daemon   bool   // a sotd daemon runs on this box
	Frontend bool   // a frontend runs on this box
	Addr     string // host:port where its daemon listens for QUIC links
	WSAddr   string // host:port where it listens for WebSocket-over-TLS links; "" for none
	Key      string // its pinned identity fingerprint, as `sotd id` prints it
	Line     int    // the line its table starts on; 0 when not from a file
}

// IsHub reports whether self is a box hosts.toml names as hub.
func (t *Topology) IsHub(self string) bool {
	return t != nil && self != "" && slices.Contains(t.HubNames(), self)
}

// HubNames lists every hub, in the file's order; none when it names none.
func (t *Topology) HubNames() []string {
	switch {
	case t == nil:
		return nil
	case len(t.Hubs) > 0:
		return t.Hubs
	case t.Hub != "":
		return []string{t.Hub}
	}
	return nil
}

// HubsOf lists the hubs the box self links to: every hub but itself.
func (t *Topology) HubsOf(self string) []string {
	var out []string
	for _, h := range t.HubNames() {
		if h != self {
			out = append(out, h)
		}
	}
	return out
}

// HubHost is the first hub's table.
func (t *Topology) HubHost() (Host, bool) {
	if t == nil {
		return Host{}, false
	}
	return t.Host(t.Hub)
}

// Host is the table of the box named name.
func (t *Topology) Host(name string) (Host, bool) {
	if t == nil {
		return Host{}, false
	}
	h, ok := t.Hosts[name]
	return h, ok
}

// BoxWithKey is the box whose pinned key is key: what a link's certificate
// must match before its hello is read.
func (t *Topology) BoxWithKey(key string) (string, bool) {
	if t == nil || key == "" {
		return "", false
	}
	for name, h := range t.Hosts {
		if h.Key == key {
			return name, true
		}
	}
	return "", false
}

// ShouldLink lists, sorted, the boxes that should hold a link to the hub:
// every box other than the hub with daemon or frontend = true. A daemon box
// without a frontend still holds handles (a session there, or a folder of its
// own), so while it relinks or is cut off a handle no linked box knows may be
// its; a frontend box with no daemon never links, which Parse warns of. When
// one holds none, a handle no linked box knows is answered "...; not linked:
// <boxes>" rather than as unknown.
func (t *Topology) ShouldLink() []string {
	if t == nil {
		return nil
	}
	return t.ShouldLinkTo(t.Hub)
}

// ShouldLinkTo is ShouldLink for the hub named hub, one of several: every
// other hub links to it too, so that its handles are reached through it.
func (t *Topology) ShouldLinkTo(hub string) []string {
	if t == nil {
		return nil
	}
	var names []string
	for name, h := range t.Hosts {
		if (h.Daemon || h.Frontend) && name != hub {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}
