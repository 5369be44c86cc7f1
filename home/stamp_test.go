package home

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStamp is the one "has this file changed" rule: an append moves it, a
// rename-replace with the same size and time moves it, nothing else does.
func TestStamp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "registry.json")
	write := func(path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), FileMode); err != nil {
			t.Fatal(err)
		}
	}
	write(p, "one\n")
	first := StampOf(p)
	if first.Absent() || !first.Same(StampOf(p)) {
		t.Fatalf("an unchanged file's stamps differ: %+v", first)
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("two\n")
	f.Close()
	grown := StampOf(p)
	if grown.Same(first) {
		t.Fatal("an append left the stamp as it was")
	}
	fi, _ := os.Stat(p)
	tmp := filepath.Join(dir, "tmp")
	write(tmp, "owt\neno\n")
	os.Chtimes(tmp, time.Time{}, fi.ModTime())
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	if StampOf(p).Same(grown) {
		t.Fatal("a file replaced by rename, same size and time, left the stamp as it was")
	}
	if missing := StampOf(filepath.Join(dir, "none")); !missing.Absent() || !missing.Same(Stamp{}) {
		t.Fatalf("a missing file's stamp is %+v, want absent", missing)
	}
}
