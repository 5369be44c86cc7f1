//go:build unix

package daemon

import (
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
)

// BenchmarkCrossBoxAlone is the cross part of BenchmarkCrossBoxBesideJetStream
// alone, 64 senders filing from ga to bob on gb through the hub, so that a
// profile of it sees only the routing and forwarding hops and the filing on gb.
// It reports the CPU this process spent per line, over all three daemons and
// the senders.
//
//	go test -run='^$' -bench=CrossBoxAlone -benchtime=4000x -cpuprofile /tmp/cpu.out ./daemon/
func BenchmarkCrossBoxAlone(b *testing.B) {
	_, ga, _ := threeBoxes(b)
	b.ResetTimer()
	start, cpu0 := time.Now(), testutil.CPU(b)
	d := timeSends(b, ga, 64)
	wall, cpu := time.Since(start), testutil.CPU(b)-cpu0
	b.ReportMetric(float64(len(d))/wall.Seconds(), "lines/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(len(d)), "cpu-µs/line")
	b.ReportMetric(ms(testutil.Percentile(d, 50)), "ms/p50")
	b.ReportMetric(ms(testutil.Percentile(d, 99)), "ms/p99")
}
