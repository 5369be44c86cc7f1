package filer

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/home"
)

// BenchmarkAppend files lines with ids into one growing inbox, one call per group:
// batch=1 is a lone sender, batch=32 a group commit of 32 waiting requests.
func BenchmarkAppend(b *testing.B) {
	for _, batch := range []int{1, 32} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			f, _ := newTestFiler(b)
			handle := "bench"
			lines := make([]Line, batch)
			n := 0
			for b.Loop() {
				for i := range lines {
					lines[i] = line("sender-box", handle, "a message of an ordinary length, about one short sentence or two", fmt.Sprintf("ID%024d", n))
					n++
				}
				if _, err := f.Append(handle, lines); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

// BenchmarkAppendCached files one line with an id at a time into an inbox already
// past DedupeTail, two ways in one run: scan=window gives every append a fresh
// Filer, which reads the whole window as a one-shot client does (and as every
// append did before Filers kept windows); scan=new-bytes keeps one Filer, as the
// daemon does, which reads only the bytes since its last append.
func BenchmarkAppendCached(b *testing.B) {
	for _, scan := range []string{"window", "new-bytes"} {
		b.Run("scan="+scan, func(b *testing.B) {
			kept, _ := newTestFilerIn(b, memDir(b))
			handle := "bench"
			var sb strings.Builder
			for i := 0; sb.Len() < DedupeTail+DedupeTail/2; i++ {
				l, _ := line("sender-box", handle, "a message of an ordinary length, about one short sentence or two", fmt.Sprintf("OLD%023d", i)).Encode()
				sb.Write(l)
			}
			if err := os.WriteFile(mustPath(b, kept, home.Inbox, handle), []byte(sb.String()), home.FileMode); err != nil {
				b.Fatal(err)
			}
			n := 0
			for b.Loop() {
				f := kept
				if scan == "window" {
					f = &Filer{Home: kept.Home, LockWait: kept.LockWait, Manager: kept.Manager, Log: kept.Log, Now: kept.Now}
				}
				l := line("sender-box", handle, "a message of an ordinary length, about one short sentence or two", fmt.Sprintf("ID%024d", n))
				n++
				if res, err := f.Append(handle, []Line{l}); err != nil || res[0].Dup {
					b.Fatal(res, err)
				}
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

// BenchmarkPollTail reads the last 10 lines of an inbox whose cursor sits 10 lines
// from its end: with the offset index the cost is the new bytes, not the file.
func BenchmarkPollTail(b *testing.B) {
	for _, total := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("lines=%d", total), func(b *testing.B) {
			f, _ := newTestFiler(b)
			handle := "reader"
			var sb strings.Builder
			for i := range total {
				l, _ := line("sender-box", handle, fmt.Sprintf("message %d of an ordinary length, about one sentence", i), fmt.Sprintf("ID%024d", i)).Encode()
				sb.Write(l)
			}
			if err := os.WriteFile(mustPath(b, f, home.Inbox, handle), []byte(sb.String()), home.FileMode); err != nil {
				b.Fatal(err)
			}
			first, err := f.ReadNew(handle)
			if err != nil {
				b.Fatal(err)
			}
			first.Lines = first.Lines[:total-10]
			first.end = int64(len(strings.Join(strings.SplitAfter(sb.String(), "\n")[:total-10], "")))
			if err := f.Commit(handle, first); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				got, err := f.ReadNew(handle)
				if err != nil || len(got.Lines) != 10 {
					b.Fatalf("read %d lines (%v), want 10", len(got.Lines), err)
				}
			}
		})
	}
}
