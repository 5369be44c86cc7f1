//go:build unix

package client

import (
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/daemontest"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
)

// BenchmarkSendRegistrySize is a send to a live handle on route 1, a poll of
// the sender's own inbox and a status show (the row lookup the hooks make),
// in a home whose registry lists 10 entries and in one that lists 10,000, in
// turn in each op, each home's daemon running: "file" with the commands told
// another socket, so each reads the registry file itself (as before
// registry.rows), and "daemon", so a command over a large registry asks the
// daemon for its rows (Session.ReadRows). It
// reports each case's µs and the large case's time over the small one's,
// wall and CPU (the process's, the daemon's share included: getrusage),
// measured in the same run.
//
//	go test -run='^$' -bench=SendRegistrySize -benchtime=200x ./client/
func BenchmarkSendRegistrySize(b *testing.B) {
	b.Run("file", func(b *testing.B) { benchRegistrySize(b, false) })
	b.Run("daemon", func(b *testing.B) { benchRegistrySize(b, true) })
}

func benchRegistrySize(b *testing.B, withDaemon bool) {
	sizes := []int{10, 10000}
	verbs := []struct {
		name string
		run  func(s *Session) int
	}{
		{"send", func(s *Session) int { return s.Send(SendArgs{To: "s00001", Text: "rebasing main in 5 minutes"}) }},
		{"poll", func(s *Session) int { return s.Poll(false) }},
		{"status", func(s *Session) int { return s.ShowStatus(false) }},
	}
	sessions := make([]*Session, len(sizes))
	for i, n := range sizes {
		sessions[i] = broadcastHome(b, n)
		b.Setenv(home.EnvSocket, "")
		daemontest.Start(b, sessions[i].Home, sessions[i].Host)
	}
	if !withDaemon {
		b.Setenv(home.EnvSocket, filepath.Join(b.TempDir(), "none.sock"))
	}
	took, cpu := make([][]time.Duration, len(verbs)), make([][]time.Duration, len(verbs))
	for v := range verbs {
		took[v], cpu[v] = make([]time.Duration, len(sizes)), make([]time.Duration, len(sizes))
	}
	for b.Loop() {
		for v, verb := range verbs {
			for i, s := range sessions {
				start, startCPU := time.Now(), testutil.CPU(b)
				if code := verb.run(s); code != ExitOK {
					s.Stdout = io.Discard
					b.Fatalf("%s with %d entries: exit %d", verb.name, sizes[i], code)
				}
				took[v][i] += time.Since(start)
				cpu[v][i] += testutil.CPU(b) - startCPU
			}
		}
	}
	for v, verb := range verbs {
		for i, n := range sizes {
			b.ReportMetric(float64(took[v][i].Microseconds())/float64(b.N), fmt.Sprintf("µs/%s-%d", verb.name, n))
		}
		ratio := fmt.Sprintf("%s-%d/%s-%d", verb.name, sizes[1], verb.name, sizes[0])
		b.ReportMetric(float64(took[v][1])/float64(took[v][0]), ratio)
		b.ReportMetric(float64(cpu[v][1])/float64(max(cpu[v][0], 1)), "cpu:"+ratio)
	}
}

// BenchmarkRegistryRowsAsk is what a command over a large registry pays for its
// rows: the daemon's answer (registry.rows: a dial, the hello and the ask in
// one round trip) in a home of 10 entries and in one of 10,000, and the read
// of the small home's file that a command there makes instead. The first
// ratio is the daemon's answer's growth with the registry; the second is
// what is left of SendRegistrySize's poll and status ratios, a round trip
// against the read of a small file.
//
//	go test -run='^$' -bench=RegistryRowsAsk -benchtime=500x ./client/
func BenchmarkRegistryRowsAsk(b *testing.B) {
	sizes := []int{10, 10000}
	sessions := make([]*Session, len(sizes))
	for i, n := range sizes {
		sessions[i] = broadcastHome(b, n)
		b.Setenv(home.EnvSocket, "")
		daemontest.Start(b, sessions[i].Home, sessions[i].Host)
	}
	var asked [2]time.Duration
	var file time.Duration
	for b.Loop() {
		for i, s := range sessions {
			start := time.Now()
			if _, ok := s.askRows([]string{"alice"}); !ok {
				b.Fatalf("the daemon of the home of %d entries gave no rows", sizes[i])
			}
			asked[i] += time.Since(start)
		}
		start := time.Now()
		if _, err := registry.ReadRows(sessions[0].Home, "alice"); err != nil {
			b.Fatal(err)
		}
		file += time.Since(start)
	}
	for i, n := range sizes {
		b.ReportMetric(float64(asked[i].Microseconds())/float64(b.N), fmt.Sprintf("µs/ask-%d", n))
	}
	b.ReportMetric(float64(file.Microseconds())/float64(b.N), "µs/file-10")
	b.ReportMetric(float64(asked[1])/float64(asked[0]), "ask-10000/ask-10")
	b.ReportMetric(float64(asked[1])/float64(file), "ask-10000/file-10")
}
