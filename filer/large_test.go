package filer

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/sotcomm/sotd/home"
)

// bigInbox writes an inbox of about size bytes to handle, lines of 1 KiB from
// bob, as a sender's years of mail would be; it answers the line count.
func bigInbox(t *testing.T, f *Filer, handle string, size int) int {
	t.Helper()
	var b bytes.Buffer
	body := bytes.Repeat([]byte("x"), 900)
	n := 0
	for b.Len() < size {
		fmt.Fprintf(&b, `{"from":"bob","to":%q,"repo":"r","msg":"%s","ts":"2026-05-29T18:04:00Z","id":"01J%023d"}`+"\n", handle, body, n)
		n++
	}
	if err := os.WriteFile(mustPath(t, f, home.Inbox, handle), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return n
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
