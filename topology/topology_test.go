package topology

import (
	"reflect"
	"strings"
	"testing"
)

func TestTopologyQueries(t *testing.T) {
	top, _, err := Parse([]byte(base + "[host.kiln]\ndaemon = true\nfrontend = true\nkey = \"ed25519:cccc\"\n[host.wall]\nfrontend = true\ndaemon = true\nkey = \"ed25519:dddd\"\n" +
		"[host.vault]\ndaemon = true\nkey = \"ed25519:eeee\"\n[host.kiosk]\nfrontend = true\nkey = \"ed25519:ffff\"\n[host.spare]\nkey = \"ed25519:gggg\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	var none *Topology

	if !top.IsHub("forge") || top.IsHub("anvil") || top.IsHub("") || none.IsHub("forge") {
		t.Error("IsHub is true only for the named hub")
	}
	if h, ok := top.HubHost(); !ok || h.Name != "forge" || h.Addr != "forge.lan:4433" {
		t.Errorf("HubHost = %+v, %v", h, ok)
	}
	if _, ok := none.HubHost(); ok {
		t.Error("a nil topology has a hub host")
	}
	if h, ok := top.Host("kiln"); !ok || h.Key != "ed25519:cccc" || h.Line != 12 {
		t.Errorf("Host(kiln) = %+v, %v", h, ok)
	}
	if _, ok := top.Host("nobody"); ok {
		t.Error("Host found an unlisted box")
	}
	for key, want := range map[string]string{"ed25519:aaaa": "forge", "ed25519:dddd": "wall", "ed25519:zzzz": "", "": ""} {
		if got, ok := top.BoxWithKey(key); got != want || ok != (want != "") {
			t.Errorf("BoxWithKey(%q) = %q, %v; want %q", key, got, ok, want)
		}
	}
	// A daemon box with no frontend (vault) holds handles too, and a frontend
	// box with no daemon (kiosk) is never linked, as Parse warns; a box with
	// neither (spare) takes no part.
	if got, want := top.ShouldLink(), []string{"anvil", "kiln", "kiosk", "vault", "wall"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ShouldLink = %q, want %q", got, want)
	}
	if none.ShouldLink() != nil {
		t.Error("a nil topology should link boxes")
	}
	// The hub is never told to link to itself, frontend or not.
	hubFront, _, err := Parse([]byte(replace("[host.forge]\n", "[host.forge]\nfrontend = true\n")))
	if err != nil {
		t.Fatal(err)
	}
	if got := hubFront.ShouldLink(); !reflect.DeepEqual(got, []string{"anvil"}) {
		t.Errorf("ShouldLink with a frontend hub = %q", got)
	}
}

// TestValidate checks a Topology built in code by the rules Parse applies.
func TestValidate(t *testing.T) {
	good := func() *Topology {
		return &Topology{Hub: "a", Hosts: map[string]Host{
			"a": {Name: "a", Daemon: true, Addr: "a:1", Key: "k1"},
			"b": {Name: "b", Daemon: true, Key: "k2"},
		}}
	}
	tests := []struct {
		name   string
		change func(*Topology)
		want   string // "" for valid
	}{
		{"valid", func(*Topology) {}, ""},
		{"no hub", func(t *Topology) { t.Hub = "" }, "hosts.toml: names no hub"},
		{"hub unlisted", func(t *Topology) { t.Hub = "c" }, `hosts.toml: hub = "c" names a box with no [host.c] table`},
		{"bad name", func(t *Topology) { t.Hosts["B"] = Host{Name: "B", Daemon: true, Key: "k3"} }, `hosts.toml: [host."B"]: box name "B" has 'B' at byte 0`},
		{"name differs from its table", func(t *Topology) { t.Hosts["c"] = Host{Name: "d", Daemon: true, Key: "k3"} }, `hosts.toml: [host.c] names its box "d"; a Host's Name is its table's name`},
		{"bad addr", func(t *Topology) { h := t.Hosts["a"]; h.WSAddr = "a"; t.Hosts["a"] = h }, `hosts.toml: ws_addr in [host.a]: "a" is not host:port`},
		{"shared key", func(t *Topology) { h := t.Hosts["b"]; h.Key = "k1"; t.Hosts["b"] = h }, `hosts.toml: [host.b] has the same key as [host.a]`},
		{"lines are kept", func(t *Topology) { h := t.Hosts["b"]; h.Key, h.Line = "", 9; t.Hosts["b"] = h }, `hosts.toml:9: [host.b] needs key`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top := good()
			tc.change(top)
			err := top.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("Validate = %v, want it to start %q", err, tc.want)
			}
		})
	}
}

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{
		"forge": true, "0": true, "a.b_c-9": true, "box-a.lan": true, strings.Repeat("z", 64): true,
		"": false, "Forge": false, "-a": false, ".a": false, "_a": false, "a b": false, "a/b": false,
		"a:b": false, "bé": false, strings.Repeat("z", 65): false,
	} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("CheckName(%q) = %v, want ok=%v", name, err, ok)
		}
	}
}
