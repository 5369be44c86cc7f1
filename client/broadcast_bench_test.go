package client

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// BenchmarkBroadcast is a broadcast to every other live session of one box, 50
// and 5,000 of them in turn in each op, each copy appended and fsynced by the
// client itself (route 1). It reports each one's ms and µs a copy, and the
// large case's µs a copy over the small one's: measured in the same run. The
// first op creates every inbox (its lock file, its file, a flush of the
// folder), the rest append to them; the 5,000 case's first op is reported
// apart too, since it weighs on the mean of a few ops.
//
//	go test -run='^$' -bench=Broadcast -benchtime=5x ./client/
func BenchmarkBroadcast(b *testing.B) {
	sizes := []int{50, 5000}
	took := make([]time.Duration, len(sizes))
	var first time.Duration // the large case's first op
	sessions := make([]*Session, len(sizes))
	for i, n := range sizes {
		sessions[i] = broadcastHome(b, n)
	}
	for b.Loop() {
		for i, s := range sessions {
			start := time.Now()
			if code := s.Send(SendArgs{Broadcast: true, Text: "rebasing main in 5 minutes"}); code != ExitOK {
				b.Fatalf("broadcast to %d exit %d", sizes[i], code)
			}
			d := time.Since(start)
			took[i] += d
			if i == len(sizes)-1 && first == 0 {
				first = d
			}
		}
	}
	perCopy := make([]float64, len(sizes))
	for i, n := range sizes {
		ms := float64(took[i].Microseconds()) / 1000 / float64(b.N)
		perCopy[i] = ms * 1000 / float64(n)
		b.ReportMetric(ms, fmt.Sprintf("ms/broadcast-%d", n))
		b.ReportMetric(perCopy[i], fmt.Sprintf("µs/copy-%d", n))
	}
	b.ReportMetric(perCopy[1]/perCopy[0], "copy-5000/copy-50")
	b.ReportMetric(float64(first.Microseconds())/1000, fmt.Sprintf("ms/first-broadcast-%d", sizes[len(sizes)-1]))
}

// broadcastHome is a home whose registry lists alice and n other live
// sessions of this box, where the client may append itself.
func broadcastHome(b testing.TB, n int) *Session {
	b.Helper()
	b.Setenv(home.EnvName, "")
	b.Setenv(home.EnvSocket, filepath.Join(b.TempDir(), "none.sock"))
	h, err := home.At(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := h.Ensure(); err != nil {
		b.Fatal(err)
	}
	own, err := filer.OwnManager(h)
	if err != nil {
		b.Fatal(err)
	}
	if err := filer.EnsureRecord(h, own, slog.New(slog.DiscardHandler)); err != nil {
		b.Fatal(err)
	}
	now := registry.Stamp(time.Now())
	agents := map[string]any{}
	for i := range n {
		agents[fmt.Sprintf("s%05d", i)] = map[string]any{"host": "box", "repo": "r", "root": "/src/r", "joined": now, "last_seen": now}
	}
	doc, _ := json.Marshal(map[string]any{"protocol_version": 1, "agents": agents})
	if err := home.WriteAtomic(h.Registry(), doc); err != nil {
		b.Fatal(err)
	}
	s := &Session{Home: h, Host: "box", Cwd: b.TempDir(), Stdout: io.Discard, Stderr: io.Discard, Now: time.Now}
	if code := s.Join(JoinArgs{Name: "alice"}); code != ExitOK {
		b.Fatalf("join: %d", code)
	}
	return s
}
