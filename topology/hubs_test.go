package topology

import (
	"slices"
	"strings"
	"testing"
)

const twoHubs = `hubs = ["forge", "kiln"]

[host.forge]
daemon = true
addr = "forge.lan:4433"
key = "k1"

[host.kiln]
daemon = true
addr = "kiln.lan:4433"
key = "k2"

[host.anvil]
daemon = true
key = "k3"
`

// TestSeveralHubs: hubs = [...] names each hub; every box links to each hub
// but itself, and each hub expects every other box, the other hubs included.
func TestSeveralHubs(t *testing.T) {
	top, warns, err := Parse([]byte(twoHubs))
	if err != nil || len(warns) != 0 {
		t.Fatalf("Parse: %v %v", err, warns)
	}
	if got := top.HubNames(); !slices.Equal(got, []string{"forge", "kiln"}) {
		t.Errorf("HubNames = %q", got)
	}
	if top.Hub != "forge" || !top.IsHub("kiln") || top.IsHub("anvil") {
		t.Errorf("Hub = %q, IsHub(kiln) = %v, IsHub(anvil) = %v", top.Hub, top.IsHub("kiln"), top.IsHub("anvil"))
	}
	if got := top.ShouldLinkTo("kiln"); !slices.Equal(got, []string{"anvil", "forge"}) {
		t.Errorf("ShouldLinkTo(kiln) = %q", got)
	}
	for _, tc := range []struct {
		self  string
		serve bool
		to    []string
		says  string
	}{
		{"anvil", false, []string{"forge", "kiln"}, "guest: hosts.toml names forge, kiln as hubs, so this daemon is a guest on the hub's folder and links to forge and kiln"},
		{"forge", true, []string{"kiln"}, "hub: hosts.toml names forge, this box, as hub, one of 2; it also links to kiln"},
		{"kiln", true, []string{"forge"}, "hub: hosts.toml names kiln, this box, as hub, one of 2; it also links to forge"},
	} {
		r := RoleOf(top, nil, tc.self, false)
		if r.Serve != tc.serve || !slices.Equal(r.LinkTo, tc.to) || !strings.HasPrefix(r.String(), tc.says) {
			t.Errorf("RoleOf(%s) = %+v %q, want Serve=%v LinkTo=%q, saying %q", tc.self, r, r.String(), tc.serve, tc.to, tc.says)
		}
	}
	one, _, err := Parse([]byte(strings.Replace(twoHubs, `hubs = ["forge", "kiln"]`, `hubs = ["forge"]`, 1)))
	if err != nil || !slices.Equal(one.HubNames(), []string{"forge"}) {
		t.Errorf("one hub in hubs: %v %v", err, one)
	}
}

func TestSeveralHubsFindings(t *testing.T) {
	for _, tc := range []struct{ name, old, new, want string }{
		{"both hub and hubs", `hubs = ["forge", "kiln"]`, "hub = \"forge\"\nhubs = [\"forge\", \"kiln\"]", `hosts.toml:2: has both hub and hubs: keep one, hub = "<box>" for one hub or hubs = ["<box>", "<box>"] for several, with every hub listed in hubs`},
		{"hubs before hub", `hubs = ["forge", "kiln"]`, "hubs = [\"forge\", \"kiln\"]\nhub = \"forge\"", `hosts.toml:2: has both hub and hubs`},
		{"not an array", `hubs = ["forge", "kiln"]`, `hubs = "forge"`, `hosts.toml:1: hubs must be an array of quoted box names, such as ["forge", "anvil"], not the string "forge"`},
		{"a number in it", `hubs = ["forge", "kiln"]`, `hubs = ["forge", 3]`, `hosts.toml:1: hubs[1] must be a quoted box name, not the number 3`},
		{"empty", `hubs = ["forge", "kiln"]`, `hubs = []`, `hosts.toml:1: names no hub`},
		{"twice", `hubs = ["forge", "kiln"]`, `hubs = ["forge", "forge"]`, `hosts.toml:1: hubs names "forge" twice: list each hub once`},
		{"unlisted", `hubs = ["forge", "kiln"]`, `hubs = ["forge", "clay"]`, `hosts.toml:1: hubs lists "clay", which names a box with no [host.clay] table`},
		{"a hub without addr", "addr = \"kiln.lan:4433\"\n", "", `hosts.toml:8: [host.kiln] is a hub, so it needs addr`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Parse([]byte(strings.Replace(twoHubs, tc.old, tc.new, 1)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
