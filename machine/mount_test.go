package machine

import "testing"

// sampleMountinfo joins the tables filer and reglock tested separately.
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
60 27 0:60 / /srv/nfs4home rw,relatime - nfs4 fs1:/export/home rw,vers=4.2,rsize=1048576,local_lock=none,addr=10.0.0.5
61 27 0:61 / /mnt rw,relatime - xfs /dev/sdd rw
62 27 0:62 / /mnt/stack rw,relatime - ext4 /dev/sde rw
63 62 0:63 / /mnt/stack rw,relatime shared:7 master:2 - fuse.sshfs me@far:/x rw,user_id=0
64 27 0:64 / /mntx rw,relatime - vfat /dev/sdf rw
71 70 0:71 / /moved rw - ext4 /dev/sdg rw
70 27 0:70 / /moved rw - tmpfs tmpfs rw
80 27 0:80 / /bare rw - tmpfs tmpfs
81 27 0:81 / /src\040dir rw - nfs4 fs\0401:/with\134slash rw
this line is not a mount
90 27 0:90 / /short rw
91 27 0:91 / /nosep rw relatime tmpfs tmpfs rw
`

func TestParseMountinfo(t *testing.T) {
	ms := ParseMountinfo(sampleMountinfo)
	if len(ms) != 20 {
		t.Fatalf("parsed %d mounts, want 20 (the three bad lines skipped)", len(ms))
	}
	byID := map[string]Mount{}
	for _, m := range ms {
		byID[m.ID] = m
	}
	tests := []struct {
		name string
		want Mount
	}{
		{"plain", Mount{ID: "27", Parent: "1", Point: "/", FSType: "ext4", Source: "/dev/vda", Options: "rw,relatime,rw,discard"}},
		{"one optional field", Mount{ID: "40", Parent: "27", Point: "/home", FSType: "nfs4", Source: "srv:/home", Options: "rw,relatime,rw,vers=4.2,nocto"}},
		{"nfs4 source", Mount{ID: "60", Parent: "27", Point: "/srv/nfs4home", FSType: "nfs4", Source: "fs1:/export/home", Options: "rw,relatime,rw,vers=4.2,rsize=1048576,local_lock=none,addr=10.0.0.5"}},
		{"two optional fields", Mount{ID: "63", Parent: "62", Point: "/mnt/stack", FSType: "fuse.sshfs", Source: "me@far:/x", Options: "rw,relatime,rw,user_id=0"}},
		{"escaped space in the point", Mount{ID: "42", Parent: "27", Point: "/mnt/with space", FSType: "xfs", Source: "/dev/sdb", Options: "rw,rw"}},
		{"escapes in the source", Mount{ID: "81", Parent: "27", Point: "/src dir", FSType: "nfs4", Source: `fs 1:/with\slash`, Options: "rw,rw"}},
		{"no superblock options", Mount{ID: "80", Parent: "27", Point: "/bare", FSType: "tmpfs", Source: "tmpfs", Options: "rw"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := byID[tt.want.ID]; got != tt.want {
				t.Fatalf("mount %s = %+v, want %+v", tt.want.ID, got, tt.want)
			}
		})
	}
	if ms := ParseMountinfo(""); ms != nil {
		t.Fatalf("an empty table parsed to %v", ms)
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`/a\040b`: "/a b", `/t\011x`: "/t\tx", `/b\134s`: `/b\s`, `/two\040\040sp`: "/two  sp",
		`/bad\09`: `/bad\09`, `/end\04`: `/end\04`, `/big\777`: `/big\777`, `/plain`: "/plain", `\`: `\`,
	} {
		if got := unescape(in); got != want {
			t.Errorf("unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMountOf(t *testing.T) {
	ms := ParseMountinfo(sampleMountinfo)
	tests := []struct {
		name, path, id string // id "" = no mount
	}{
		{"root", "/work/main", "27"},
		{"the root itself", "/", "27"},
		{"stacked: the one on top", "/dev/shm/x", "30"},
		{"nfs4 with an optional field", "/home/u/.sot-comm", "40"},
		{"nfs4 source", "/srv/nfs4home/me/.sot-comm", "60"},
		{"the mount point itself", "/net", "41"},
		{"escaped space in the mount point", "/mnt/with space/h", "42"},
		{"prefix is not containment", "/mnt/with spacex", "61"},
		{"mount inside an overlay", "/ovl/data/h", "44"},
		{"overlay", "/ovl/h", "43"},
		{"stacked by parent", "/stack/h", "51"},
		{"stacked, deeper than a shallower mount", "/mnt/stack/comm", "63"},
		{"the shallower mount", "/mnt/disk", "61"},
		{"/mnt is not a prefix of /mntx", "/mntx/comm", "64"},
		{"stacked by parent, not by order: the top listed first", "/moved/h", "71"},
		{"a relative path is on no mount", "work/main", ""},
		{"an empty path is on no mount", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := MountOf(ms, tt.path)
			switch {
			case tt.id == "" && ok:
				t.Fatalf("%q found mount %+v, want none", tt.path, m)
			case tt.id != "" && !ok:
				t.Fatalf("no mount for %q", tt.path)
			case m.ID != tt.id:
				t.Fatalf("mount of %q is %+v, want id %s", tt.path, m, tt.id)
			}
		})
	}
	if m, ok := MountOf(nil, "/x"); ok {
		t.Fatalf("an empty mount table found %+v", m)
	}
}

func TestHasOption(t *testing.T) {
	m := Mount{Options: "rw,relatime,rw,vers=4.2,local_lock=none,noctox"}
	tests := []struct {
		opt  string
		want bool
	}{
		{"relatime", true},        // per-mount
		{"local_lock=none", true}, // superblock
		{"local_lock=all", false}, // another value
		{"local_lock", false},     // a key is not the option
		{"nocto", false},          // a piece of noctox
		{"rw,relatime", false},    // never two at once
		{"", false},               // no empty option in the list
	}
	for _, tt := range tests {
		if got := m.HasOption(tt.opt); got != tt.want {
			t.Errorf("HasOption(%q) = %v, want %v", tt.opt, got, tt.want)
		}
	}
}

// FuzzMountOf checks that any text parses without a panic into mounts that
// carry a point and a type, and that the mount found for a path contains it
// and is the deepest that does.
func FuzzMountOf(f *testing.F) {
	f.Add(sampleMountinfo, "/mnt/stack/comm")
	f.Add("1 1 0:1 / / rw - ext4 d rw\n2 2 0:2 / / rw - tmpfs t rw\n", "/x")
	f.Add(`3 1 0:3 / /a\ - x - - -`, "/a\\")
	f.Fuzz(func(t *testing.T, text, path string) {
		ms := ParseMountinfo(text)
		for _, m := range ms {
			if m.Point == "" || m.FSType == "" {
				t.Fatalf("parsed an empty point or type: %+v", m)
			}
		}
		m, ok := MountOf(ms, path)
		if !ok {
			return
		}
		if !contains(m.Point, path) {
			t.Fatalf("mount %+v does not contain %q", m, path)
		}
		for _, o := range ms {
			if contains(o.Point, path) && len(o.Point) > len(m.Point) {
				t.Fatalf("mount %+v is deeper than %+v for %q", o, m, path)
			}
		}
	})
}
