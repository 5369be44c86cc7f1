package reglock

import (
	"strings"
	"testing"
)

const sampleMountinfo = `22 27 0:21 / /proc rw,relatime - proc proc rw
25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24683652k
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
30 25 0:27 / /dev/shm rw,relatime - overlay overlay rw
40 27 0:40 / /home rw,relatime shared:5 - nfs4 srv:/home rw,vers=4.2,nocto
41 27 0:41 / /net rw,relatime shared:6 master:2 - nfs srv:/net rw,vers=3
42 27 0:42 / /mnt/with\040space rw - xfs /dev/sdb rw
43 27 0:43 / /ovl rw - overlay overlay rw,lowerdir=/a
44 43 0:44 / /ovl/data rw - btrfs /dev/sdc rw
50 27 0:50 / /stack rw - tmpfs tmpfs rw
51 50 0:51 / /stack rw - fuse.sshfs host: rw
this line is not a mount
`

func TestMountOf(t *testing.T) {
	tests := []struct {
		name, path string
		fstype     string
		vouched    string // "" = vouched, else a word of the refusal
	}{
		{"root", "/work/main", "ext4", ""},
		{"stacked: the one on top", "/dev/shm/x", "overlay", "overlay"},
		{"nfs4 with nocto", "/home/u/.sot-comm", "nfs4", "nocto"},
		{"nfs without nocto", "/net/x", "nfs", ""},
		{"escaped space in the mount point", "/mnt/with space/h", "xfs", ""},
		{"prefix is not containment", "/mnt/with spacex", "ext4", ""},
		{"mount inside an overlay", "/ovl/data/h", "btrfs", ""},
		{"overlay", "/ovl/h", "overlay", "overlay"},
		{"stacked by parent, not by order", "/stack/h", "fuse.sshfs", "fuse.sshfs"},
		{"the mount point itself", "/net", "nfs", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := mountOf(sampleMountinfo, tt.path)
			if !ok {
				t.Fatalf("no mount for %s", tt.path)
			}
			if m.fstype != tt.fstype {
				t.Fatalf("mount of %s is %s, want %s", tt.path, m.fstype, tt.fstype)
			}
			err := m.vouch()
			switch {
			case tt.vouched == "" && err != nil:
				t.Fatalf("%s not vouched: %v", tt.path, err)
			case tt.vouched != "" && (err == nil || !strings.Contains(err.Error(), tt.vouched)):
				t.Fatalf("%s: vouch = %v, want a refusal naming %q", tt.path, err, tt.vouched)
			}
		})
	}
	if _, ok := mountOf("", "/x"); ok {
		t.Fatal("an empty mount table found a mount")
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{`/a\040b`: "/a b", `/t\011x`: "/t\tx", `/b\134s`: `/b\s`, `/bad\09`: `/bad\09`, `/end\04`: `/end\04`} {
		if got := unescape(in); got != want {
			t.Errorf("unescape(%q) = %q, want %q", in, got, want)
		}
	}
}
