package filer

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/machine"
)

// sampleMountinfo holds one mount of each kind the policy sorts; how a path
// finds its mount (escapes, prefixes, stacks) is machine's to test.
const sampleMountinfo = `22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
30 27 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24683652k
40 27 0:40 / /srv/nfs4home rw,relatime - nfs4 fs1:/export/home rw,vers=4.2,rsize=1048576,local_lock=none,addr=10.0.0.5
41 27 0:41 / /srv/nfs4all rw,relatime - nfs4 fs1:/export/all rw,vers=4.1,local_lock=all,addr=10.0.0.5
42 27 0:42 / /srv/nfs3 rw,relatime - nfs fs2:/v3 rw,vers=3,local_lock=none
43 27 0:43 / /var/lib/overlay rw,relatime - overlay overlay rw,lowerdir=/a,upperdir=/b
44 27 0:44 / /mnt rw,relatime - xfs /dev/sdb rw
45 27 0:45 / /mnt/stack rw,relatime - ext4 /dev/sdc rw
46 45 0:46 / /mnt/stack rw,relatime shared:7 master:2 - fuse.sshfs me@far:/x rw,user_id=0
48 27 0:48 / /mntx rw,relatime - vfat /dev/sde rw
`

func TestManagerOf(t *testing.T) {
	ms := machine.ParseMountinfo(sampleMountinfo)
	tests := []struct {
		path, id, want string
	}{
		{"/home/me/.sot-comm", "m1", "local m1"},
		{"/dev/shm/comm", "m1", "local m1"},
		{"/srv/nfs4home/me/.sot-comm", "m1", "nfs4 fs1:/export/home"},
		{"/srv/nfs4home", "m1", "nfs4 fs1:/export/home"},
		{"/srv/nfs4all/me", "m1", "none@m1"},    // nfs4 with local locks
		{"/srv/nfs3/me", "m1", "none@m1"},       // local_lock=none is not enough off nfs4
		{"/var/lib/overlay/x", "m1", "none@m1"}, // overlay
		{"/mnt/disk", "m1", "local m1"},         // xfs
		{"/mnt/stack/comm", "m1", "none@m1"},    // the FUSE mount on top, not the ext4 beneath
		{"/mntx/comm", "m1", "none@m1"},         // vfat
		{"/proc/self", "m1", "none@m1"},         // proc is not a disk
		{"relative/path", "m1", "none@m1"},      // on no mount: the lock is unknown
		{"/home/me", machine.Unknown, "none"},   // no machine id
		{"/srv/nfs4home/me", "", "none"},        // no machine id, even on nfs4
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := managerOf(ms, tt.path, tt.id); got != tt.want {
				t.Fatalf("managerOf(%q, %q) = %q, want %q", tt.path, tt.id, got, tt.want)
			}
		})
	}
}

func TestComputeManagerHere(t *testing.T) {
	dir := t.TempDir()
	got, err := computeManager(filepath.Join(dir, "not", "made", "yet"))
	if err != nil {
		t.Fatal(err)
	}
	id := machine.ID()
	switch {
	case !machine.Known(id):
		if got != "none" {
			t.Fatalf("no machine id, got %q", got)
		}
	case runtime.GOOS != "linux":
		if got != "none@"+id {
			t.Fatalf("got %q, want none@%s", got, id)
		}
	default:
		// Read apart from machine.Mounts, which only Linux builds.
		b, err := os.ReadFile("/proc/self/mountinfo")
		if err != nil {
			t.Fatal(err)
		}
		real, _ := filepath.EvalSymlinks(dir)
		if want := managerOf(machine.ParseMountinfo(string(b)), real, id); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}

func testHome(t *testing.T) home.Home {
	t.Helper()
	h, err := home.At(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func writeRecord(t *testing.T, h home.Home, text string) {
	t.Helper()
	if err := os.WriteFile(h.LockManager(), []byte(text), home.FileMode); err != nil {
		t.Fatal(err)
	}
}

func TestEnsureRecord(t *testing.T) {
	const me = "mach-A"
	tests := []struct {
		name     string
		existing string // "" for no record
		own      string
		id       string
		want     string // the record afterwards
		err      string
	}{
		{"absent: created", "", "local mach-A", me, "local mach-A\nmach-A\n", ""},
		{"own: left alone", "local mach-A\nmach-A\n", "local mach-A", me, "local mach-A\nmach-A\n", ""},
		{"own, written by another machine: left alone", "nfs4 fs:/x\nmach-B\n", "nfs4 fs:/x", me, "nfs4 fs:/x\nmach-B\n", ""},
		{"this machine's, remounted: replaced", "none@mach-A\nmach-A\n", "local mach-A", me, "local mach-A\nmach-A\n", ""},
		{"another machine's: untouched", "local mach-B\nmach-B\n", "local mach-A", me, "local mach-B\nmach-B\n",
			"was written by machine mach-B and names a different lock manager (local mach-B) than this hub's (local mach-A); it was left untouched"},
		{"unknown writer: untouched", "local mach-B\n", "local mach-A", me, "local mach-B\n", "an unknown machine"},
		{"bare none never writes", "", "none", machine.Unknown, "", "give the machine a machine id (/etc/machine-id on Linux), then restart the daemon"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := testHome(t)
			if tt.existing != "" {
				writeRecord(t, h, tt.existing)
			}
			var logs bytes.Buffer
			err := ensureRecord(h, tt.own, tt.id, slog.New(slog.NewTextHandler(&logs, nil)))
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("err %v, want %q", err, tt.err)
			}
			got, _ := os.ReadFile(h.LockManager())
			if string(got) != tt.want {
				t.Fatalf("record %q, want %q", got, tt.want)
			}
			if tt.err != "" && strings.Contains(tt.err, "untouched") && !strings.Contains(err.Error(), "delete "+h.LockManager()+" (or run sotd lock-manager reset) and start the hub") {
				t.Fatalf("the refusal names no recovery: %v", err)
			}
			if left, _ := filepath.Glob(filepath.Join(h.Dir, ".inbox-lock-manager.*")); len(left) != 0 {
				t.Fatalf("temp files left behind: %v", left)
			}
			if tt.want != "" {
				if fi, _ := os.Stat(h.LockManager()); fi.Mode().Perm() != home.FileMode {
					t.Fatalf("record mode %v", fi.Mode())
				}
			}
		})
	}
}

// Two hubs starting at once on one folder: exactly one record is written, and the
// loser judges the winner's.
func TestEnsureRecordRace(t *testing.T) {
	for round := range 20 {
		h := testHome(t)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := fmt.Sprintf("mach-%d", i)
				errs[i] = ensureRecord(h, "local "+id, id, slog.New(slog.DiscardHandler))
			}()
		}
		wg.Wait()
		line1, line2, ok, err := ReadRecord(h.LockManager())
		if err != nil || !ok {
			t.Fatalf("round %d: no record: %v", round, err)
		}
		winner := line2[len("mach-"):]
		for i, e := range errs {
			if won := fmt.Sprint(i) == winner; won != (e == nil) {
				t.Fatalf("round %d: record %q/%q, hub %d got %v", round, line1, line2, i, e)
			}
		}
	}
}

func TestMatches(t *testing.T) {
	tests := []struct {
		name, record, own string
		want              bool
		why               string
	}{
		{"same manager", "local m1\nm1\n", "local m1", true, ""},
		{"nfs4 export shared by two machines", "nfs4 fs:/x\nm1\n", "nfs4 fs:/x", true, ""},
		{"another machine's none", "none@m1\nm1\n", "none@m2", false, `is "none@m1", and this box's is "none@m2"`},
		{"a mismatched export", "nfs4 fs:/x\nm1\n", "nfs4 fs:/y", false, "nfs4 fs:/x"},
		{"bare none record", "none\n", "none", false, "never matches"},
		{"this box has no machine id", "local m1\nm1\n", "none", false, "never matches"},
		{"no record", "", "local m1", false, "the hub has not started on this folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := testHome(t)
			if tt.record != "" {
				writeRecord(t, h, tt.record)
			}
			ok, why := Matches(h, tt.own)
			if ok != tt.want || !strings.Contains(why, tt.why) || (tt.want && why != "") {
				t.Fatalf("Matches = %v %q, want %v %q", ok, why, tt.want, tt.why)
			}
		})
	}
}

func TestReadRecord(t *testing.T) {
	h := testHome(t)
	if _, _, ok, err := ReadRecord(h.LockManager()); ok || err != nil {
		t.Fatalf("no record: ok=%v err=%v", ok, err)
	}
	writeRecord(t, h, "local m1\r\nm1\r\n")
	if l1, l2, ok, err := ReadRecord(h.LockManager()); !ok || err != nil || l1 != "local m1" || l2 != "m1" {
		t.Fatalf("got %q %q %v %v", l1, l2, ok, err)
	}
	os.Remove(h.LockManager())
	os.Mkdir(h.LockManager(), 0o700)
	if _, _, _, err := ReadRecord(h.LockManager()); err == nil {
		t.Fatal("a folder read as a record")
	}
	// A record linked in from elsewhere is refused, never read through.
	os.Remove(h.LockManager())
	elsewhere := filepath.Join(t.TempDir(), "record")
	if err := os.WriteFile(elsewhere, []byte("local m1\nm1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plantLink(t, elsewhere, h.LockManager())
	if _, _, ok, err := ReadRecord(h.LockManager()); ok || err == nil || !strings.Contains(err.Error(), "is a symlink, not a regular file") {
		t.Fatalf("a symlinked record: ok=%v err=%v; want it refused", ok, err)
	}
}
