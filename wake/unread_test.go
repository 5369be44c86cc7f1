package wake

import (
	"errors"
	"os"
	"testing"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
)

func newFiler(tb testing.TB) *filer.Filer {
	tb.Helper()
	h, err := home.At(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	if err := h.Ensure(); err != nil {
		tb.Fatal(err)
	}
	return filer.New(h)
}

func file(tb testing.TB, f *filer.Filer, to string, from ...string) {
	tb.Helper()
	lines := make([]filer.Line, len(from))
	for i, fr := range from {
		lines[i] = filer.Line{From: fr, To: to, Msg: "hello", TS: "2026-06-15T19:00:00Z"}
	}
	if _, err := f.Append(to, lines); err != nil {
		tb.Fatal(err)
	}
}

func TestFilerUnread(t *testing.T) {
	f := newFiler(t)
	unread := FilerUnread(f)
	count := func(want int) string {
		t.Helper()
		n, batch, err := unread("alice")
		if err != nil || n != want || (n == 0) != (batch == "") {
			t.Fatalf("unread = %d, %q, %v; want %d", n, batch, err, want)
		}
		return batch
	}
	count(0) // no inbox yet
	file(t, f, "alice", "bob", "carol")
	first := count(2)
	file(t, f, "alice", "alice") // one's own line is never unread
	if again := count(2); again != first {
		t.Errorf("a line that is not unread changed the batch: %q, then %q", first, again)
	}
	b, err := f.ReadNew("alice")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit("alice", b); err != nil {
		t.Fatal(err)
	}
	count(0)
	file(t, f, "alice", "bob")
	if next := count(1); next == first {
		t.Errorf("new mail after a read names the old batch %q", first)
	}
}

func TestFilerUnreadPassesErrorsOn(t *testing.T) {
	f := newFiler(t)
	path, err := f.Home.HandlePath(home.Cursor, "alice")
	if err != nil {
		t.Fatal(err)
	}
	// A folder where the read cursor should be cannot be read.
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, _, err := FilerUnread(f)("alice"); err == nil || errors.Is(err, filer.ErrBusy) {
		t.Errorf("unread with an unreadable cursor = %v, want a fault that is not busy", err)
	}
	if _, _, err := FilerUnread(f)("../x"); err == nil {
		t.Error("unread of a bad handle succeeded")
	}
}
