package home

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sotcomm/sotd/internal/crashfs"
)

// A home made on a disk that then loses power keeps its folders and what was
// written into them: each new folder is flushed into its parent, even under
// POSIX's strict rule that only a folder's own fsync keeps its entries.
func TestEnsureSurvivesPowerLoss(t *testing.T) {
	mnt := t.TempDir()
	fsys := crashfs.Mount(t, mnt, crashfs.Strict)
	h := Home{Dir: filepath.Join(mnt, "users", "me", ".sot-comm")}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	slot := Slot{Key: "root-abc"}
	if err := h.WriteSelf("box", slot, Self{Name: "alice", Repo: "r", Root: "/r"}); err != nil {
		t.Fatal(err)
	}
	if err := MkdirPrivate(h.SessionsDir("box")); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Crash(nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range append(folders, filepath.Join("run", "box", "sessions")) {
		if fi, err := os.Stat(filepath.Join(h.Dir, f)); err != nil || !fi.IsDir() {
			t.Errorf("after a power loss the home's %s is gone: %v", f, err)
		}
	}
	if s, ok, err := h.ReadSelf("box", slot); err != nil || !ok || s.Name != "alice" {
		t.Errorf("after a power loss the self file reads %+v, %v, %v; want alice's pin", s, ok, err)
	}
}
