package network

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/topology"
)

// TestPinsParseHostsTomlOnlyWhenItChanged: the hub asks which box a key is
// pinned to at every handshake, a refused one included, so a peer refused in
// a loop would have hosts.toml parsed each time. It is parsed again only when
// its stat changes, and a hosts.toml that does not read is said once.
func TestPinsParseHostsTomlOnlyWhenItChanged(t *testing.T) {
	var parses int
	saved := loadHosts
	t.Cleanup(func() { loadHosts = saved })
	loadHosts = func(path string) (*topology.Topology, []topology.Warning, error) {
		parses++
		return saved(path)
	}
	hosts := filepath.Join(t.TempDir(), "hosts.toml")
	write := func(key string) {
		t.Helper()
		toml := fmt.Sprintf("hub = \"hb\"\n[host.hb]\ndaemon = true\naddr = \"127.0.0.1:1\"\nkey = \"ed25519:hhhh\"\n[host.ga]\ndaemon = true\nkey = %q\n", key)
		if err := os.WriteFile(hosts, []byte(toml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	logs := &testutil.SyncBuffer{}
	n := &Network{log: slog.New(slog.NewTextHandler(logs, nil)), self: "hb", hosts: hosts}
	const first, second = "ed25519:aaaa", "ed25519:bbbbbbbb"
	write(first)
	for range 100 {
		if box, ok := n.pins("ed25519:stranger"); ok {
			t.Fatalf("a stranger's key is pinned to %s", box)
		}
	}
	if box, ok := n.pins(first); !ok || box != "ga" {
		t.Fatalf("pins(%s) = %q, %v; want ga", first, box, ok)
	}
	if parses != 1 {
		t.Errorf("101 handshakes parsed hosts.toml %d times, want once", parses)
	}
	write(second) // another size: its stat changes
	if box, ok := n.pins(second); !ok || box != "ga" {
		t.Fatalf("after the change pins(%s) = %q, %v; want ga", second, box, ok)
	}
	if parses != 2 {
		t.Errorf("a changed hosts.toml was parsed %d times in all, want twice", parses)
	}

	if err := os.WriteFile(hosts, []byte("hub = [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		n.pins(second)
	}
	if got := strings.Count(logs.String(), "hosts.toml could not be read"); got != 1 {
		t.Errorf("a hosts.toml that does not parse was logged %d times over 10 handshakes, want once:\n%s", got, logs)
	}
}
