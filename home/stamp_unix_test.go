//go:build unix

package home

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestStampLooksThroughNoSymlinkOrFIFO: a symlink is followed only when
// asked, and a FIFO is no file and does not hold the look.
func TestStampLooksThroughNoSymlinkOrFIFO(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "registry.json")
	if err := os.WriteFile(p, []byte("{}\n"), FileMode); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "hosts.toml")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	if !StampOf(link).Absent() {
		t.Fatal("StampOf went through a symlink")
	}
	if !StampFollowing(link).Same(StampOf(p)) {
		t.Fatal("StampFollowing did not stamp the symlink's target")
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if !StampOf(fifo).Absent() {
		t.Fatal("a FIFO was stamped as a file")
	}
}
