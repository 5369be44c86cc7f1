package client

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRelayEndpoint(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("hosts.toml", `hub = "forge"

[host.forge]
daemon = true
addr = "forge.lan:4433"
key = "ed25519:ceek3o7y54x2vsltakp54q3jthxce2vuiafzwjzryighdd6sy5wq"
`)
	if addr, err := RelayEndpoint(good); err != nil || addr != "forge.lan:4433" {
		t.Fatalf("RelayEndpoint = %q, %v; want forge.lan:4433", addr, err)
	}
	for _, tc := range []struct{ name, path, want string }{
		{"absent", filepath.Join(dir, "none.toml"), "there is no hosts.toml at " + filepath.Join(dir, "none.toml") + ", so this box is a standalone hub and has no relay endpoint"},
		{"broken", write("bad.toml", "hubb = \"x\"\n"), "bad.toml:1: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, err := RelayEndpoint(tc.path)
			if err == nil || addr != "" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("RelayEndpoint = %q, %v; want an error with %q", addr, err, tc.want)
			}
			if tc.name == "broken" && !strings.HasSuffix(err.Error(), "; with hosts.toml unusable no box is the hub, so there is no relay endpoint") {
				t.Fatalf("the error does not say there is no hub: %v", err)
			}
		})
	}
}
