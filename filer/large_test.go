package filer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/sotcomm/sotd/home"
)

// bigInbox writes an inbox of about size bytes to handle, lines of 1 KiB from
// bob, as a sender's years of mail would be; it answers the line count.
func bigInbox(t testing.TB, f *Filer, handle string, size int) int {
	t.Helper()
	const body = 900
	one := len(inboxLine(handle, body, 0))
	n := (size + one - 1) / one
	fillInbox(t, f, handle, n, body)
	return n
}

// fillInbox writes an inbox of n lines from bob to handle, each message of
// body bytes, straight to the file (not appended one by one).
func fillInbox(t testing.TB, f *Filer, handle string, n, body int) {
	t.Helper()
	file, err := os.OpenFile(mustPath(t, f, home.Inbox, handle), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(file, 1<<20)
	for i := range n {
		w.Write(inboxLine(handle, body, i))
	}
	if err := errors.Join(w.Flush(), file.Close()); err != nil {
		t.Fatal(err)
	}
}

// inboxLine is line i of fillInbox's inbox.
func inboxLine(handle string, body, i int) []byte {
	return fmt.Appendf(nil, `{"from":"bob","to":%q,"repo":"r","msg":"%s","ts":"2026-05-29T18:04:00Z","id":"01J%023d"}`+"\n", handle, bytes.Repeat([]byte("x"), body), i)
}

// allocated is how many bytes fn allocated on the heap.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestCountingALargeInboxKeepsNoLine: the daemon's unread count (Unread,
// Recount) and a ReadEach stream a large inbox rather than read it whole:
// they allocate a small part of its size. Before, a count of a 1 GiB inbox
// took 1.1 GB.
func TestCountingALargeInboxKeepsNoLine(t *testing.T) {
	f, _ := newTestFiler(t)
	const size = 8 << 20 // 8,000 lines: the budget is a line's, quick under -race
	lines := bigInbox(t, f, "me", size)
	const most = size / 8
	var n int
	var err error
	if got := allocated(func() { n, err = f.Unread("me") }); err != nil || n != lines || got > most {
		t.Errorf("Unread = %d, %v, allocating %d bytes; want %d, allocating at most %d", n, err, got, lines, most)
	}
	var tally Tally
	if got := allocated(func() { tally, err = f.Recount("me", Tally{}) }); err != nil || tally.N != lines || got > most {
		t.Errorf("Recount = %d, %v, allocating %d bytes; want %d, allocating at most %d", tally.N, err, got, lines, most)
	}
	var seen int
	var b Batch
	got := allocated(func() {
		b, err = f.ReadEach("me", func(int, []byte) error { seen++; return nil })
	})
	if err != nil || seen != lines || b.Len() != lines || got > most {
		t.Errorf("ReadEach saw %d lines (%d), %v, allocating %d bytes; want %d, allocating at most %d", seen, b.Len(), err, got, lines, most)
	}
	// The batch commits as ReadNew's would: the next read finds nothing new.
	if err := f.Commit("me", b); err != nil {
		t.Fatal(err)
	}
	if n, err := f.Unread("me"); err != nil || n != 0 {
		t.Errorf("after the commit Unread = %d, %v; want 0", n, err)
	}
}

// TestReceiptsOfALargeInboxReadItsEnd: a sender's last receipts are read from
// the end of the inbox back, so they cost the lines shown, not the inbox.
// Before, every line was decoded from the first: the allocations were the
// inbox's size and more.
func TestReceiptsOfALargeInboxReadItsEnd(t *testing.T) {
	f, _ := newTestFiler(t)
	const size = 8 << 20
	lines := bigInbox(t, f, "me", size)
	var rs []Receipt
	var err error
	got := allocated(func() { rs, err = f.Receipts("me", "bob", 10) })
	if err != nil || len(rs) != 10 || got > size/8 {
		t.Fatalf("Receipts = %d, %v, allocating %d bytes; want 10, allocating at most %d", len(rs), err, got, size/8)
	}
	if first, want := rs[0].ID, fmt.Sprintf("01J%023d", lines-10); first != want {
		t.Errorf("the first receipt is %s, want %s: the last ten, oldest first", first, want)
	}
}
