package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/wire"
)

// topologies are the hosts.toml files the link checks are judged against: box
// (this one) a guest of hb, with and without a WebSocket address, and box the
// hub of frontend guests ga and gx.
var topologies = map[string]string{
	"guest": `hub = "hb"
[host.hb]
daemon = true
addr = "10.0.0.1:4433"
key = "` + keyN(0) + `"
[host.box]
daemon = true
frontend = true
key = "` + keyN(1) + `"
`,
	"guest-ws": `hub = "hb"
[host.hb]
daemon = true
addr = "10.0.0.1:4433"
ws_addr = "10.0.0.1:4443"
key = "` + keyN(2) + `"
[host.box]
daemon = true
frontend = true
key = "` + keyN(3) + `"
`,
	"guest-2hubs": `hubs = ["hb", "hc"]
[host.hb]
daemon = true
addr = "10.0.0.1:4433"
key = "` + keyN(7) + `"
[host.hc]
daemon = true
addr = "10.0.0.2:4433"
key = "` + keyN(8) + `"
[host.box]
daemon = true
frontend = true
key = "` + keyN(9) + `"
`,
	"hub": `hub = "box"
[host.box]
daemon = true
addr = "10.0.0.9:4433"
key = "` + keyN(4) + `"
[host.ga]
daemon = true
frontend = true
key = "` + keyN(5) + `"
[host.gx]
frontend = true
key = "` + keyN(6) + `"
`,
}

// keyN is a well-formed key of its own for each n.
func keyN(n int) string { return otherKey[:8] + string(rune('a'+n)) + otherKey[9:] }

// hostsOf loads the named topology ("" for no hosts.toml).
func hostsOf(t *testing.T, name string) hostsFile {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hosts.toml")
	if name != "" {
		must(t, os.WriteFile(p, []byte(topologies[name]), 0o600))
	}
	f := loadHosts(p)
	if name != "" && f.err != nil {
		t.Fatalf("topology %s: %v", name, f.err)
	}
	return f
}

func ms(f float64) *float64 { return &f }

const since = "2030-01-01T00:00:00.123456789Z"

var (
	hbUp     = wire.LinkState{Box: "hb", Up: true, Transport: "quic", Since: since, RTTMillis: ms(0.42), OffsetMillis: ms(0.01)}
	hbDown   = wire.LinkState{Box: "hb", Since: since, LastError: "QUIC did not get through: timeout: no recent network activity"}
	hcUp     = wire.LinkState{Box: "hc", Up: true, Transport: "quic", Since: since, RTTMillis: ms(0.5), OffsetMillis: ms(0.01)}
	hcDown   = wire.LinkState{Box: "hc", Since: since, LastError: "the hub did not answer"}
	gaUp     = wire.LinkState{Box: "ga", Up: true, Transport: "ws", Since: since, RTTMillis: ms(12.5), OffsetMillis: ms(-800)}
	gxDown   = wire.LinkState{Box: "gx", Since: since}
	untimed  = wire.LinkState{Box: "hb", Up: true, Transport: "quic", Since: since}
	noDaemon = fmt.Errorf("%w at /run/sotd.sock: connection refused", errNoDaemon)
	oldOp    = &wire.Refusal{Op: wire.OpLinkStatus, Code: wire.CodeUnknownOp, Sentence: "unknown op: link.status"}
)

func guestOf(links ...wire.LinkState) wire.LinkStatus {
	return wire.LinkStatus{Role: wire.LinkRoleGuest, Links: links}
}

func guestOfHubs(links ...wire.LinkState) wire.LinkStatus {
	return wire.LinkStatus{Role: wire.LinkRoleGuest, Links: links, HubLinks: links}
}

func hubOf(links ...wire.LinkState) wire.LinkStatus {
	return wire.LinkStatus{Role: wire.LinkRoleHub, Links: links}
}

func withOffset(l wire.LinkState, off float64) wire.LinkState {
	l.OffsetMillis = &off
	return l
}

// linkCase is one judgement: what the daemon said (or err) against a topology.
type linkCase struct {
	name   string
	hosts  string // a topologies key; "" for none
	st     wire.LinkStatus
	err    error
	level  Level
	detail []string // each in the detail
	fix    []string // each in the fix; none means no fix
}

func judge(t *testing.T, tests []linkCase, check func(Env, hostsFile, wire.LinkStatus, error) Check) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := hostsOf(t, tc.hosts)
			c := check(Env{Host: "box"}, f, tc.st, tc.err)
			if c.Level != tc.level || !containsAll(c.Detail, tc.detail) {
				t.Fatalf("%s: %s %q; want %s with %q", c.Name, c.Level, c.Detail, tc.level, tc.detail)
			}
			if (len(tc.fix) == 0) != (c.Fix == "") || !containsAll(c.Fix, tc.fix) {
				t.Fatalf("%s fix %q; want %q", c.Name, c.Fix, tc.fix)
			}
		})
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func TestCheckLinks(t *testing.T) {
	judge(t, []linkCase{
		{name: "standalone, no daemon", err: noDaemon, level: OK, detail: []string{"standalone hub", "holds no links"}},
		{name: "no daemon to ask", hosts: "guest", err: noDaemon, level: OK, detail: []string{"not known: no daemon runs"}},
		{name: "a daemon older than link.status", hosts: "guest", err: oldOp, level: Warn, detail: []string{"older than this sotd"}, fix: []string{"Restart the daemon"}},
		{name: "a daemon started before hosts.toml", hosts: "guest", st: wire.LinkStatus{Role: wire.LinkRoleStandalone, Reason: "no hosts.toml (open: no such file)", Links: []wire.LinkState{}},
			level: Fail, detail: []string{"links to none: no hosts.toml"}, fix: []string{"Restart the daemon so it reads", "names hb as hub"}},
		{name: "guest linked", hosts: "guest", st: guestOf(hbUp), level: OK, detail: []string{"this guest holds every link it should: hb up over quic, round trip 0.42 ms"}},
		{name: "guest linked, not timed", hosts: "guest", st: guestOf(untimed), level: OK, detail: []string{"hb up over quic, not timed yet"}},
		{name: "hub down, UDP may be blocked", hosts: "guest", st: guestOf(hbDown), level: Fail,
			detail: []string{"hb down since 2030-01-01T00:00:00Z (QUIC did not get through"},
			fix:    []string{"sotd doctor on hb", `[host.hb] addr = "10.0.0.1:4433"`, "firewall blocks UDP, give [host.hb] a ws_addr", "sotd id", "under [host.box]"}},
		{name: "hub down, WebSocket named", hosts: "guest-ws", st: guestOf(hbDown), level: Fail,
			detail: []string{"hb down since"},
			fix:    []string{`addr = "10.0.0.1:4433"`, `or its ws_addr = "10.0.0.1:4443" over TCP`}},
		{name: "a guest never linked", hosts: "hub", st: hubOf(gaUp, gxDown), level: Fail,
			detail: []string{"gx down since 2030-01-01T00:00:00Z", "ga up over ws, round trip 12.5 ms"},
			fix:    []string{"Start sotd serve on gx", "name box as hub", "set daemon = false and frontend = false"}},
		{name: "hub with every guest linked", hosts: "hub", st: hubOf(gaUp), level: OK, detail: []string{"this hub holds every link it should: ga up"}},
		{name: "hub with no guest to link", hosts: "hub", st: hubOf(), level: OK, detail: []string{"should hold no link"}},
		{name: "guest of two hubs, both up", hosts: "guest-2hubs", st: guestOfHubs(hbUp, hcUp), level: OK, detail: []string{"a link to each of its hubs: hb up over quic", "hc up over quic"}},
		{name: "guest of two hubs, one down", hosts: "guest-2hubs", st: guestOfHubs(hbDown, hcUp), level: Warn,
			detail: []string{"mail goes through the hubs up, but hb down since", "hc up over quic"}, fix: []string{"sotd doctor on hb"}},
		{name: "guest of two hubs, both down", hosts: "guest-2hubs", st: guestOfHubs(hbDown, hcDown), level: Fail,
			detail: []string{"no hub is linked", "hb down since", "hc down since"}, fix: []string{"sotd doctor on hb"}},
		{name: "a hub whose link to the other hub is down", hosts: "guest-2hubs", st: wire.LinkStatus{Role: wire.LinkRoleHub, Links: []wire.LinkState{gaUp}, HubLinks: []wire.LinkState{hcDown}}, level: Fail,
			detail: []string{"no hub is linked", "hc down since"}, fix: []string{"sotd doctor on hc"}},
		{name: "a hub linked to the other hub", hosts: "guest-2hubs", st: wire.LinkStatus{Role: wire.LinkRoleHub, Links: []wire.LinkState{gaUp}, HubLinks: []wire.LinkState{hcUp}}, level: OK,
			detail: []string{"holds every link it should: ga up", "to the other hubs: hc up over quic"}},
	}, checkLinks)
}

func TestCheckClaims(t *testing.T) {
	squatted := hbUp
	squatted.RefusedClaims = []wire.RefusedClaim{{Handle: "proj-box", Holder: "gm", Why: "another box holds it; a handle has one holder"}}
	claims := func(e Env, f hostsFile, st wire.LinkStatus, err error) Check { return checkClaims(f, st, err) }
	judge(t, []linkCase{
		{name: "no daemon", hosts: "guest", err: noDaemon, level: OK, detail: []string{"not known"}},
		{name: "every claim taken", hosts: "guest", st: guestOf(hbUp), level: OK, detail: []string{"took every handle"}},
		{name: "a claim refused", hosts: "guest", st: guestOf(squatted), level: Warn,
			detail: []string{"refused 1 of this box's handles", "@proj-box (another box holds it; a handle has one holder; held by gm)"},
			fix:    []string{"sotd join --name", "remove its pin"}},
	}, claims)
}

func TestCheckSkew(t *testing.T) {
	skew := func(e Env, f hostsFile, st wire.LinkStatus, err error) Check { return checkSkew(f, st, err) }
	judge(t, []linkCase{
		{name: "no daemon", hosts: "guest", err: noDaemon, level: OK, detail: []string{"not measured: not known"}},
		{name: "a daemon older than link.status", hosts: "guest", err: oldOp, level: OK, detail: []string{"not measured: the daemon"}},
		{name: "in step", hosts: "guest", st: guestOf(hbUp), level: OK, detail: []string{"within 5s of this box: hb in step"}},
		{name: "a little off", hosts: "guest", st: guestOf(withOffset(hbUp, -7000)), level: Warn,
			detail: []string{"hb 7s behind"}, fix: []string{"timedatectl set-ntp true", "chrony"}},
		{name: "the hub far ahead", hosts: "guest", st: guestOf(withOffset(hbUp, 42000)), level: Fail,
			detail: []string{"more than 5s: hb 42s ahead"}, fix: []string{"timedatectl set-ntp true"}},
		{name: "one guest of two far behind", hosts: "hub", st: hubOf(withOffset(gaUp, -31000), withOffset(hbUp, 2)), level: Fail,
			detail: []string{"ga 31s behind"}, fix: []string{"Sync the clock"}},
		{name: "a peer that sends no timing", hosts: "guest", st: guestOf(untimed), level: Warn,
			detail: []string{"hb send no timing"}, fix: []string{"Update sotd on hb"}},
		{name: "the link down", hosts: "guest", st: guestOf(hbDown), level: OK, detail: []string{"no link is up"}},
	}, skew)
}
