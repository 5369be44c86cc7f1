package topology

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// TestExample keeps the repository's hosts.toml.example a file that loads as
// it says: three boxes, a hub that serves WebSocket too, two frontend guests.
func TestExample(t *testing.T) {
	path := filepath.Join("..", "hosts.toml.example")
	top, warns, err := Load(path)
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	if len(top.Hosts) != 3 {
		t.Errorf("hosts = %d, want 3", len(top.Hosts))
	}
	hub, ok := top.HubHost()
	if !ok || !hub.Daemon || hub.Addr == "" || hub.WSAddr == "" || hub.Key == "" {
		t.Errorf("hub = %+v", hub)
	}
	if got, want := top.ShouldLink(), []string{"anvil", "winbox"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ShouldLink = %q, want %q", got, want)
	}
	for _, name := range top.ShouldLink() {
		if r := RoleOf(top, nil, name, name == "winbox"); !slices.Equal(r.LinkTo, []string{hub.Name}) || r.Hub != (name == "winbox") {
			t.Errorf("%s: %v", name, r)
		}
	}
}
