//go:build unix

package wake

import (
	"fmt"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
)

// BenchmarkLoopIdleRows is the wake's cost with 50 idle Claude rows whose mail
// was all read: each pass counts 50 real inboxes (20 lines each, the cursor at
// the end) and reads no screen. It reports the process's CPU time (getrusage)
// per minute of passes, one every 2 s; the goal is ≤ 0.6 s a minute.
func BenchmarkLoopIdleRows(b *testing.B) {
	const rows = 50
	f := newFiler(b)
	fr := &fakeRows{}
	for i := range rows {
		h := fmt.Sprintf("agent-%02d", i)
		fr.add(claudeRow(fmt.Sprintf("ws-%02d", i), h))
		for range 20 {
			file(b, f, h, "bob")
		}
		batch, err := f.ReadNew(h)
		if err != nil {
			b.Fatal(err)
		}
		if err := f.Commit(h, batch); err != nil {
			b.Fatal(err)
		}
	}
	in := newInboxes()
	l := &Loop{Rows: fr, Unread: FilerUnread(f), Entry: in.Entry}
	l.start()
	l.step() // the restart look
	before, passes := testutil.CPU(b), 0
	for b.Loop() {
		l.step()
		passes++
	}
	cpu := testutil.CPU(b) - before
	perMinute := cpu.Seconds() / float64(passes) * float64(time.Minute/Every)
	b.ReportMetric(perMinute, "cpu-s/min")
	for _, r := range fr.rows {
		if r.looks != 1 {
			b.Fatalf("row %s was looked at %d times, want only the restart look", r.row.ID, r.looks)
		}
	}
}
