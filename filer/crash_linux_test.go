package filer

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/crashfs"
)

// An append answered without error survives a power loss on a disk that keeps a
// new name only once its folder is synced (POSIX's strict rule): a new inbox's
// entry is flushed before its first line is answered, and so is that of an empty
// inbox another process created and never filled. A read cursor committed before
// the loss holds after it.
func TestAppendSurvivesPowerLoss(t *testing.T) {
	mnt := t.TempDir()
	fsys := crashfs.Mount(t, mnt, crashfs.Strict)
	f, _ := newTestFilerIn(t, filepath.Join(mnt, "comm"))
	// A creator that died between its create and its first append leaves this.
	empty, err := os.Create(mustPath(t, f, home.Inbox, "carol"))
	if err != nil {
		t.Fatal(err)
	}
	empty.Close()
	for _, h := range []string{"bob", "carol"} {
		for i, id := range []string{"01-" + h, "02-" + h} {
			if _, err := f.Append(h, []Line{line("alice", h, "line "+id, id)}); err != nil {
				t.Fatalf("append %d to @%s: %v", i, h, err)
			}
		}
	}
	b, err := f.ReadNew("bob")
	if err != nil || len(b.Lines) != 2 {
		t.Fatalf("read @bob before the loss: %d lines, %v", len(b.Lines), err)
	}
	if err := f.Commit("bob", b); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Append("bob", []Line{line("alice", "bob", "after the poll", "03-bob")}); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Crash(nil); err != nil {
		t.Fatal(err)
	}
	for h, want := range map[string]int{"bob": 3, "carol": 2} {
		raw, err := os.ReadFile(mustPath(t, f, home.Inbox, h))
		if err != nil {
			t.Errorf("@%s's inbox after a power loss: %v", h, err)
			continue
		}
		if got := bytes.Count(raw, []byte("\n")); got != want {
			t.Errorf("@%s's inbox after a power loss holds %d lines, want %d:\n%s", h, got, want, raw)
		}
	}
	b, err = f.ReadNew("bob")
	if err != nil || len(b.Lines) != 1 {
		t.Fatalf("read @bob after the loss: %d new lines (%v), want the one filed after the poll", len(b.Lines), err)
	}
}
