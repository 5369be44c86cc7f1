package reglock

import (
	"strings"
	"testing"

	"github.com/sotcomm/sotd/machine"
)

// Which mount a path is on is machine's to test; these are the vouch's rules.
func TestVouchMount(t *testing.T) {
	tests := []struct {
		name    string
		m       machine.Mount
		refused string // "" = vouched, else a word of the refusal
	}{
		{"ext4", machine.Mount{FSType: "ext4", Options: "rw,relatime,rw,discard"}, ""},
		{"tmpfs", machine.Mount{FSType: "tmpfs", Options: "rw,rw"}, ""},
		{"nfs without nocto", machine.Mount{FSType: "nfs", Options: "rw,relatime,rw,vers=3"}, ""},
		{"nfs4 with nocto", machine.Mount{FSType: "nfs4", Options: "rw,relatime,rw,vers=4.2,nocto"}, "nocto"},
		{"nocto as a per-mount option", machine.Mount{FSType: "nfs", Options: "rw,nocto,rw"}, "nocto"},
		{"an option that only starts with nocto", machine.Mount{FSType: "nfs4", Options: "rw,noctox"}, ""},
		{"overlay", machine.Mount{FSType: "overlay", Options: "rw,rw,lowerdir=/a"}, "overlay"},
		{"fuse", machine.Mount{FSType: "fuse.sshfs", Options: "rw,rw"}, "fuse.sshfs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := vouchMount(tt.m)
			switch {
			case tt.refused == "" && err != nil:
				t.Fatalf("%+v not vouched: %v", tt.m, err)
			case tt.refused != "" && (err == nil || !strings.Contains(err.Error(), tt.refused)):
				t.Fatalf("%+v: vouch = %v, want a refusal naming %q", tt.m, err, tt.refused)
			}
		})
	}
}
