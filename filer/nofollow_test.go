package filer

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/home"
)

// plantLink makes the home's file at path a symlink to target, as a hostile
// process that can write the home's folders but not the victim's would.
func plantLink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Skipf("cannot make a symlink here: %v", err)
	}
}

// victim is a file outside the home with a last line a cut-back would remove.
func victim(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func wantRefusal(t *testing.T, what string, err error, name string) {
	t.Helper()
	want := name + " is a symlink, not a regular file: sotd never follows links in the home; remove it and retry"
	if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, home.ErrNotRegular) {
		t.Fatalf("%s through a symlinked %s = %v; want it refused with %q", what, name, err, want)
	}
}

func wantUntouched(t *testing.T, path, content string) {
	t.Helper()
	if got := readFile(t, path); got != content {
		t.Fatalf("the file a symlink in the home points at was changed:\n got %q\nwant %q", got, content)
	}
}

// An inbox that is a symlink is never appended through: the file it names keeps
// every byte, its unterminated last line included.
func TestAppendRefusesASymlinkedInbox(t *testing.T) {
	f, _ := newTestFiler(t)
	const content = "someone else's first line\nand a last line with no newline"
	v := victim(t, content)
	plantLink(t, v, mustPath(t, f, home.Inbox, "alice"))

	_, err := f.Append("alice", []Line{line("bob", "alice", "hello", "01J0000000000000000000000A")})
	wantRefusal(t, "an append", err, "inbox/alice.jsonl")
	if !strings.Contains(err.Error(), "nothing was appended") {
		t.Fatalf("refusal %q does not say nothing was appended", err)
	}
	wantUntouched(t, v, content)

	_, err = f.ReadNew("alice")
	wantRefusal(t, "a read", err, "inbox/alice.jsonl")
	_, err = f.Receipts("alice", "bob", 10)
	wantRefusal(t, "a receipts read", err, "inbox/alice.jsonl")
}

// A lock file that is a symlink creates nothing at its target, for a writer
// (refused) or a reader (the fault is named and the read runs unlocked, as for
// any lock that cannot be opened).
func TestLockRefusesASymlinkedLockFile(t *testing.T) {
	f, _ := newTestFiler(t)
	seed(t, f, "alice", 2)
	target := filepath.Join(t.TempDir(), "made-elsewhere")
	plantLink(t, target, mustPath(t, f, home.InboxLock, "alice"))

	_, err := f.Append("alice", []Line{line("bob", "alice", "hello", "")})
	wantRefusal(t, "an append", err, "inbox/alice.lock")
	b, err := f.ReadNew("alice")
	if err != nil || len(b.Lines) != 2 {
		t.Fatalf("read beside a symlinked lock: %v %+v; want the 2 lines read unlocked", err, b)
	}
	if !strings.Contains(b.Fault, "inbox/alice.lock is a symlink, not a regular file") || !strings.Contains(b.Fault, "read without it") {
		t.Fatalf("fault %q does not name the symlinked lock", b.Fault)
	}
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the lock's symlink target was created (%v)", err)
	}
}

// A cursor or an offset index that is a symlink stops the read: following it
// would take a position (or, from a garbled cursor, show its bytes) from a file
// outside the home.
func TestReadRefusesSymlinkedCursorFiles(t *testing.T) {
	for _, tt := range []struct {
		kind home.Kind
		name string
	}{
		{home.Cursor, "read/alice.cursor"},
		{home.CursorIndex, "read/alice.offset"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := newTestFiler(t)
			seed(t, f, "alice", 3)
			const content = "a secret that is not a cursor\n"
			v := victim(t, content)
			plantLink(t, v, mustPath(t, f, tt.kind, "alice"))

			b, err := f.ReadNew("alice")
			wantRefusal(t, "a read", err, tt.name)
			if len(b.Lines) != 0 {
				t.Fatalf("a refused read returned %d lines", len(b.Lines))
			}
			_, err = f.Receipts("alice", "peer", 10)
			wantRefusal(t, "a receipts read", err, tt.name)
			wantUntouched(t, v, content)
		})
	}
}
