//go:build unix

package filer

import (
	"fmt"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
)

// BenchmarkLongInbox is what reads an inbox on every turn, with 1,000 lines
// in it and with 1,000,000, in turn in each op: three new lines are filed past
// a committed cursor, then the Stop hook's and the wake's unread count
// (Unread), the page's count (Recount), a sender's receipts (the last 10 it
// filed, as sotd sent shows), the status page's read of the last 500 lines for
// its conversations (Last) and a poll of the new lines with its commit. It
// reports each one's µs and the large case's time over the small one's, wall
// and CPU (the process's: getrusage), measured in the same run. The inbox's
// lines are of 170 bytes: the large one is 170 MB.
//
//	go test -run='^$' -bench=LongInbox -benchtime=200x ./filer/
func BenchmarkLongInbox(b *testing.B) {
	sizes := []int{1000, 1000000}
	type inbox struct {
		f     *Filer
		tally Tally
	}
	inboxes := make([]*inbox, len(sizes))
	for i, n := range sizes {
		f, _ := newTestFiler(b)
		fillInbox(b, f, "me", n, 40)
		in := &inbox{f: f}
		for j := range 10 {
			if _, err := f.Append("me", []Line{line("carol", "me", "an old one", fmt.Sprintf("OLD%023d", j))}); err != nil {
				b.Fatal(err)
			}
		}
		batch, err := f.ReadEach("me", func(int, []byte) error { return nil })
		if err == nil {
			err = f.Commit("me", batch)
		}
		if err == nil {
			in.tally, err = f.Recount("me", Tally{})
		}
		if err != nil {
			b.Fatal(err)
		}
		inboxes[i] = in
	}
	steps := []struct {
		name string
		run  func(in *inbox) error
	}{
		{"unread", func(in *inbox) error {
			n, err := in.f.Unread("me")
			if err == nil && n != 3 {
				err = fmt.Errorf("%d unread, want 3", n)
			}
			return err
		}},
		{"recount", func(in *inbox) (err error) {
			in.tally, err = in.f.Recount("me", in.tally)
			if err == nil && in.tally.N != 3 {
				err = fmt.Errorf("the page counts %d unread, want 3", in.tally.N)
			}
			return err
		}},
		{"receipts", func(in *inbox) error {
			rs, err := in.f.Receipts("me", "carol", 10)
			if err == nil && len(rs) != 10 {
				err = fmt.Errorf("%d receipts, want 10", len(rs))
			}
			return err
		}},
		{"tail", func(in *inbox) error {
			ls, err := in.f.Last("me", 500, nil)
			if err == nil && (len(ls) != 500 || ls[499].Read) {
				err = fmt.Errorf("%d lines, the last read %v; want 500, the last unread", len(ls), ls[len(ls)-1].Read)
			}
			return err
		}},
		{"poll", func(in *inbox) error {
			batch, err := in.f.ReadEach("me", func(int, []byte) error { return nil })
			if err == nil && batch.Len() != 3 {
				err = fmt.Errorf("the poll read %d lines, want 3", batch.Len())
			}
			if err == nil {
				err = in.f.Commit("me", batch)
			}
			return err
		}},
	}
	took, cpu := make([][]time.Duration, len(steps)), make([][]time.Duration, len(steps))
	for s := range steps {
		took[s], cpu[s] = make([]time.Duration, len(sizes)), make([]time.Duration, len(sizes))
	}
	id := 0
	for b.Loop() {
		for i, in := range inboxes {
			for range 3 {
				id++
				if _, err := in.f.Append("me", []Line{line("carol", "me", "a new one", fmt.Sprintf("NEW%023d", id))}); err != nil {
					b.Fatal(err)
				}
			}
			for s, step := range steps {
				start, startCPU := time.Now(), testutil.CPU(b)
				if err := step.run(in); err != nil {
					b.Fatalf("%s with %d lines: %v", step.name, sizes[i], err)
				}
				took[s][i] += time.Since(start)
				cpu[s][i] += testutil.CPU(b) - startCPU
			}
		}
	}
	for s, step := range steps {
		for i, n := range sizes {
			b.ReportMetric(float64(took[s][i].Microseconds())/float64(b.N), fmt.Sprintf("µs/%s-%d", step.name, n))
		}
		ratio := fmt.Sprintf("%s-%d/%s-%d", step.name, sizes[1], step.name, sizes[0])
		b.ReportMetric(float64(took[s][1])/float64(took[s][0]), ratio)
		b.ReportMetric(float64(cpu[s][1])/float64(max(cpu[s][0], 1)), "cpu:"+ratio)
	}
}
