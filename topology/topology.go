package topology

import "sort"

// Topology is a parsed, validated hosts.toml.
type Topology struct {
	Hub     string // the hub's box name
	HubLine int    // the line of hub = …, for messages; 0 when not from a file
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

// IsHub reports whether self is the box hosts.toml names as hub.
func (t *Topology) IsHub(self string) bool {
	return t != nil && t.Hub != "" && t.Hub == self
}

// HubHost is the hub's table.
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
	var names []string
	for name, h := range t.Hosts {
		if (h.Daemon || h.Frontend) && name != t.Hub {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}
