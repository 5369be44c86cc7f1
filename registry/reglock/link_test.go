package reglock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLink(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, ".registry.lock")
	took, err := link(lock, lock, "a:-:-:-:1:-")
	if err != nil || !took {
		t.Fatalf("first link = %v, %v", took, err)
	}
	if took, err := link(lock, lock, "b:-:-:-:2:-"); err != nil || took {
		t.Fatalf("link over a holder = %v, %v; want held", took, err)
	}
	if got := readLine(t, lock); got != "a:-:-:-:1:-" {
		t.Fatalf("the holder was replaced: %q", got)
	}
	// An older version's lock directory: held, never linked into.
	older := filepath.Join(dir, "older")
	if err := os.Mkdir(older, 0o700); err != nil {
		t.Fatal(err)
	}
	if took, err := link(lock, older, "c:-:-:-:3:-"); err != nil || took {
		t.Fatalf("link onto a directory = %v, %v; want held", took, err)
	}
	if entries, _ := os.ReadDir(older); len(entries) != 0 {
		t.Fatalf("linked into the directory: %v", entries)
	}
	// No temp file is left behind, held or taken.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp.") {
			t.Fatalf("temp left: %s", e.Name())
		}
	}
	if _, err := link(lock, filepath.Join(dir, "no", "x"), "d:-:-:-:4:-"); err == nil || !strings.Contains(err.Error(), "cannot hard-link in "+filepath.Join(dir, "no")) {
		t.Fatalf("link into a missing folder = %v", err)
	}
}

// TestSameFile is the rule for a failed link: taken only when the target is the
// caller's own temp file.
func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	writeRecord(t, a, "x")
	writeRecord(t, c, "x")
	if err := os.Link(a, b); err != nil {
		t.Fatal(err)
	}
	if !sameFile(a, b) {
		t.Fatal("a hard link is not the same file")
	}
	if sameFile(a, c) || sameFile(a, filepath.Join(dir, "none")) {
		t.Fatal("distinct or missing files read as the same")
	}
}
