//go:build !windows

package topology

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestPath(t *testing.T) {
	tests := []struct {
		name                string
		sotHosts, xdg, home string
		want, wantErr       string
	}{
		{"SOT_HOSTS wins", "/etc/sot/hosts.toml", "/x", "/home/u", "/etc/sot/hosts.toml", ""},
		{"SOT_HOSTS is taken as given", "rel/hosts.toml", "", "/home/u", "rel/hosts.toml", ""},
		{"XDG_CONFIG_HOME", "", "/x/cfg", "/home/u", "/x/cfg/sot/hosts.toml", ""},
		{"relative XDG_CONFIG_HOME is ignored", "", "cfg", "/home/u", "/home/u/.config/sot/hosts.toml", ""},
		{"home", "", "", "/home/u", "/home/u/.config/sot/hosts.toml", ""},
		{"nothing to go by", "", "", "", "", "no hosts.toml location: $XDG_CONFIG_HOME is unset and the user's home is unknown; set $SOT_HOSTS to its path"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvHosts, tc.sotHosts)
			t.Setenv("XDG_CONFIG_HOME", tc.xdg)
			t.Setenv("HOME", tc.home)
			got, err := Path()
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Path() = %q, %v; want error %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != filepath.FromSlash(tc.want) {
				t.Fatalf("Path() = %q, %v; want %q", got, err, tc.want)
			}
			if !strings.HasSuffix(got, "hosts.toml") {
				t.Errorf("%q is not a hosts.toml", got)
			}
		})
	}
}
