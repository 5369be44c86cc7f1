package topology

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRoleOf(t *testing.T) {
	top, _, err := Parse([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	missing := fmt.Errorf("read hosts.toml: %w", &fs.PathError{Op: "open", Path: "/h/hosts.toml", Err: fs.ErrNotExist})
	_, _, invalid := Parse([]byte(replace(`hub = "forge"`, `hub = "kiln"`)))
	_, _, twoFindings := Parse([]byte(replace(`hub = "forge"`, `hub = "kiln"`) + "[host.b]\ndaemon = true\n"))
	unreadable := errors.New("read hosts.toml /h/hosts.toml: read /h/hosts.toml: is a directory")

	tests := []struct {
		name    string
		top     *Topology
		loadErr error
		self    string
		ownDisk bool
		want    Role
		reason  string // a substring of String()
	}{
		{"no hosts.toml: standalone hub", nil, missing, "forge", false,
			Role{Hub: true}, "hub: no hosts.toml (read hosts.toml: open /h/hosts.toml: file does not exist), so this daemon is a standalone hub"},
		{"no hosts.toml, own disk: still standalone hub", nil, missing, "kiln", true,
			Role{Hub: true}, "hub: no hosts.toml"},
		{"no topology and no error: standalone hub", nil, nil, "forge", false,
			Role{Hub: true}, "hub: no hosts.toml, so this daemon is a standalone hub"},
		{"the topology's hub", top, nil, "forge", false,
			Role{Hub: true, Serve: true}, "hub: hosts.toml names forge, this box, as hub"},
		{"the topology's hub on its own disk", top, nil, "forge", true,
			Role{Hub: true, Serve: true}, "hub: hosts.toml names forge, this box, as hub"},
		{"a guest on the hub's folder", top, nil, "anvil", false,
			Role{LinkTo: []string{"forge"}}, "guest: hosts.toml names forge as hub, so this daemon is a guest on the hub's folder and links to forge"},
		{"a guest with its own folder keeps it and links", top, nil, "anvil", true,
			Role{Hub: true, LinkTo: []string{"forge"}}, "hub: hosts.toml names forge as hub and this box's comm folder is on its own disk, so this daemon keeps that folder and links to forge"},
		{"an unlisted box still links, and is told why it is refused", top, nil, "kiln", false,
			Role{LinkTo: []string{"forge"}}, "; this box, kiln, is not listed, and forge refuses a box its hosts.toml does not list: add [host.kiln]"},
		{"an invalid hosts.toml names no hub: guest", nil, invalid, "forge", false,
			Role{}, `guest: hosts.toml could not be read or is not valid, so it names no hub; this daemon links to none, and its comm folder is not on its own disk, so it is a guest there; fix it and restart the daemon: hosts.toml:1: hub = "kiln"`},
		{"an invalid hosts.toml on its own disk: hub of its folder", nil, invalid, "forge", true,
			Role{Hub: true}, "hub: hosts.toml could not be read or is not valid, so it names no hub; this daemon links to none, and its comm folder is on its own disk, so it is that folder's hub; fix it"},
		{"several findings stay on one line", nil, twoFindings, "forge", false,
			Role{}, `fix it and restart the daemon: hosts.toml:1: hub = "kiln" names a box with no [host.kiln] table: add one with daemon = true, addr and key; hosts.toml:12: [host.b] needs key`},
		{"an unreadable hosts.toml is not a missing one", nil, unreadable, "forge", false,
			Role{}, "guest: hosts.toml could not be read or is not valid, so it names no hub; this daemon links to none, and its comm folder is not on its own disk, so it is a guest there; fix it and restart the daemon: read hosts.toml /h/hosts.toml: read /h/hosts.toml: is a directory"},
		{"the self name must match exactly", top, nil, "Forge", false,
			Role{LinkTo: []string{"forge"}}, "guest: hosts.toml names forge as hub"},
		{"a topology built with no hub names none", &Topology{}, nil, "", true,
			Role{Hub: true}, `hub: hosts.toml names no hub; this daemon links to none, and its comm folder is on its own disk, so it is that folder's hub; add hub = "<box>" and restart the daemon`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := RoleOf(tc.top, tc.loadErr, tc.self, tc.ownDisk)
			if got.Hub != tc.want.Hub || got.Serve != tc.want.Serve || !slices.Equal(got.LinkTo, tc.want.LinkTo) {
				t.Errorf("RoleOf = %+v, want Hub=%v Serve=%v LinkTo=%q", got, tc.want.Hub, tc.want.Serve, tc.want.LinkTo)
			}
			if !strings.Contains(got.String(), tc.reason) {
				t.Errorf("String() = %q\nwant it to contain %q", got, tc.reason)
			}
		})
	}
}

// TestRoleOfLoad runs the rule on what Load really returns for a missing
// file, a directory in the file's place and a file that does not validate.
func TestRoleOfLoad(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		path string
		hub  bool
	}{
		{"missing", filepath.Join(dir, "absent.toml"), true},
		{"a directory", dir, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top, _, err := Load(tc.path)
			if r := RoleOf(top, err, "forge", false); r.Hub != tc.hub || len(r.LinkTo) != 0 {
				t.Errorf("RoleOf(Load(%s)) = %v", tc.path, r)
			}
		})
	}
}
