package client

import (
	"fmt"
	"io"
	"testing"
	"time"
)

// BenchmarkSendRegistrySize is a send to a live handle on route 1 and a poll
// of the sender's own inbox, in a home whose registry lists 10 entries and in
// one that lists 10,000, in turn in each op. It reports each case's µs and the
// large case's time over the small one's, measured in the same run.
//
//	go test -run='^$' -bench=RegistrySize -benchtime=200x ./client/
func BenchmarkSendRegistrySize(b *testing.B) {
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
	}
	took := make([][]time.Duration, len(verbs))
	for v := range verbs {
		took[v] = make([]time.Duration, len(sizes))
	}
	for b.Loop() {
		for v, verb := range verbs {
			for i, s := range sessions {
				start := time.Now()
				if code := verb.run(s); code != ExitOK {
					s.Stdout = io.Discard
					b.Fatalf("%s with %d entries: exit %d", verb.name, sizes[i], code)
				}
				took[v][i] += time.Since(start)
			}
		}
	}
	for v, verb := range verbs {
		for i, n := range sizes {
			b.ReportMetric(float64(took[v][i].Microseconds())/float64(b.N), fmt.Sprintf("µs/%s-%d", verb.name, n))
		}
		b.ReportMetric(float64(took[v][1])/float64(took[v][0]), fmt.Sprintf("%s-%d/%s-%d", verb.name, sizes[1], verb.name, sizes[0]))
	}
}
