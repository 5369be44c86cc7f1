package topology

import (
	"fmt"
	"net"
	"sort"
	"strconv"
)

// MaxName is the longest box name: a box name is part of every handle and of
// the local socket's folder, and a handle is at most 64 characters.
const MaxName = 64

// Validate checks a Topology by hosts.toml's rules, as Parse does; a Topology
// built in code has no lines, so its findings name none.
func (t *Topology) Validate() error {
	var ps problems
	check(t, func(box, _ string) int {
		if box == "" {
			return t.HubLine
		}
		return t.Hosts[box].Line
	}, &ps)
	_, err := ps.result("hosts.toml")
	return err
}

// check applies the rules that span keys and boxes. at gives the line of a
// key in [host.<box>] (box "" for the top level), or of the table without it.
func check(t *Topology, at func(box, key string) int, ps *problems) {
	checkHub(t, at, ps)
	keyOwner := map[string]string{}
	for _, name := range byLine(t.Hosts) {
		h := t.Hosts[name]
		where := tableName(name)
		if err := CheckName(name); err != nil {
			ps.fail(h.Line, "%s: %v", where, err)
			continue
		}
		if h.Name != name {
			ps.fail(h.Line, "%s names its box %q; a Host's Name is its table's name", where, h.Name)
		}
		for _, a := range []struct{ key, val string }{{"addr", h.Addr}, {"ws_addr", h.WSAddr}} {
			if a.val == "" {
				continue
			}
			if err := checkAddr(a.val); err != nil {
				ps.fail(at(name, a.key), "%s in %s: %v", a.key, where, err)
			}
		}
		checkBoxKey(h, at, keyOwner, ps)
		switch {
		case !h.Daemon && !h.Frontend:
			ps.warn(h.Line, "%s sets neither daemon nor frontend = true, so it takes no part in the network", where)
		case h.Frontend && !h.Daemon && !t.IsHub(name):
			ps.warn(at(name, "daemon"), "%s has frontend = true and no daemon: only a daemon holds a link to the hub, so %s will always be reported as not linked", where, name)
		}
	}
}

func checkHub(t *Topology, at func(box, key string) int, ps *problems) {
	hubs := t.HubNames()
	if len(hubs) == 0 {
		ps.fail(t.HubLine, "names no hub: add hub = \"<box>\" (or hubs = [\"<box>\", \"<box>\"] for several) above the first [host.<box>], naming the box whose daemon every other box can reach")
		return
	}
	seen := map[string]bool{}
	for _, name := range hubs {
		if seen[name] {
			ps.fail(at("", "hub"), "hubs names %q twice: list each hub once", name)
			continue
		}
		seen[name] = true
		checkOneHub(t, name, len(hubs) > 1, at, ps)
	}
}

func checkOneHub(t *Topology, name string, several bool, at func(box, key string) int, ps *problems) {
	named, role := fmt.Sprintf("hub = %q", name), "the hub"
	if several {
		named, role = fmt.Sprintf("hubs lists %q, which", name), "a hub"
	}
	if err := CheckName(name); err != nil {
		ps.fail(at("", "hub"), "hub: %v", err)
		return
	}
	h, ok := t.Hosts[name]
	if !ok {
		ps.fail(at("", "hub"), "%s names a box with no [host.%s] table: add one with daemon = true, addr and key", named, name)
		return
	}
	if !h.Daemon {
		ps.fail(at(name, "daemon"), "%s is %s, so it needs daemon = true: its daemon is the one every other box links to", tableName(name), role)
	}
	if h.Addr == "" {
		ps.fail(h.Line, "%s is %s, so it needs addr = \"<host>:<port>\": every other box dials it there", tableName(name), role)
	}
}

// checkBoxKey requires a key of every box that links or is linked to (the
// hub pins each guest's, each guest pins the hub's) and refuses a key two
// boxes share, since a certificate must name exactly one box.
func checkBoxKey(h Host, at func(box, key string) int, keyOwner map[string]string, ps *problems) {
	where := tableName(h.Name)
	if h.Key == "" {
		if h.Daemon || h.Frontend {
			ps.fail(h.Line, "%s needs key = \"<fingerprint>\": linked boxes pin each other's keys; copy the last field `sotd id` prints on %s", where, h.Name)
		}
		return
	}
	if err := checkKey(h.Key); err != nil {
		ps.fail(at(h.Name, "key"), "key in %s: %v", where, err)
		return
	}
	if other, dup := keyOwner[h.Key]; dup {
		ps.fail(at(h.Name, "key"), "%s has the same key as %s: each box has its own identity, so one of them is wrong; run `sotd id` on each and copy its last field", where, tableName(other))
		return
	}
	keyOwner[h.Key] = h.Name
}

func byLine(hosts map[string]Host) []string {
	names := make([]string, 0, len(hosts))
	for n := range hosts {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := hosts[names[i]], hosts[names[j]]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return names[i] < names[j]
	})
	return names
}

// CheckName is the box-name rule, [a-z0-9][a-z0-9._-]* of at most MaxName:
// a daemon checks its own name ($SOT_SELF_HOST) by it before it links.
func CheckName(n string) error {
	if n == "" {
		return fmt.Errorf("the box name is empty")
	}
	if len(n) > MaxName {
		return fmt.Errorf("box name %q is %d characters, over the %d allowed", n, len(n), MaxName)
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		lowerOrDigit := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !lowerOrDigit && (i == 0 || c != '.' && c != '_' && c != '-') {
			return fmt.Errorf("box name %q has %q at byte %d: a box name is lowercase letters, digits, '.', '_' and '-', starting with a letter or digit", n, c, i)
		}
	}
	return nil
}

// checkAddr accepts host:port with a host to dial and a numeric port.
func checkAddr(a string) error {
	for i := 0; i < len(a); i++ {
		if a[i] <= ' ' || a[i] >= 0x7f {
			return fmt.Errorf("%q has %q at byte %d; write it as host:port, such as \"box-a.lan:4433\"", a, a[i], i)
		}
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return fmt.Errorf("%q is not host:port (%w); write it as \"box-a.lan:4433\" or \"[fd00::1]:4433\"", a, err)
	}
	if host == "" {
		return fmt.Errorf("%q names no host; other boxes dial it, so give the box's name or address, such as \"box-a.lan%s\"", a, a)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%q: port %q is not a number from 1 to 65535", a, port)
	}
	return nil
}

// checkKey treats a fingerprint as opaque: one token of printable ASCII with
// no quote or backslash, so it survives shells, logs and copying by hand.
func checkKey(k string) error {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\'' || c == '\\' {
			return fmt.Errorf("%q has %q at byte %d: a key is one token of printable ASCII, the last field `sotd id` prints", k, c, i)
		}
	}
	return nil
}

// tableName is how a person finds the table: [host.box-a], quoted when the
// name is not a valid box name.
func tableName(name string) string {
	if CheckName(name) == nil {
		return "[host." + name + "]"
	}
	return fmt.Sprintf("[host.%q]", name)
}
