package integration

import (
	"os/exec"
	"slices"
	"testing"
	"time"
)

// BenchmarkSendProcess times a whole `sotd send` process on one box (route 1:
// the client's own append under flock, then fsync) beside the baseline of the
// same binary starting and printing its usage, measured in the same run.
//
//	go test -run='^$' -bench=SendProcess -benchtime=300x ./integration/
func BenchmarkSendProcess(b *testing.B) {
	bx := newBox(b, "box")
	bx.serve()
	bx.must("alice", "join")
	bx.must("bob", "join")
	dir := b.TempDir()
	cmd := func(args ...string) func() *exec.Cmd {
		return func() *exec.Cmd {
			c := exec.Command(sotdBin, args...)
			c.Env = bx.env("bob")
			c.Dir = dir
			return c
		}
	}
	b.ResetTimer()
	base := medianOf(b, cmd("help"))
	send := medianOf(b, cmd("send", "@alice", "a line of about the size agents send to each other"))
	b.StopTimer()
	b.ReportMetric(float64(send.Microseconds())/1000, "send-ms/median")
	b.ReportMetric(float64(base.Microseconds())/1000, "start-ms/median")
	b.ReportMetric(float64(send)/float64(base), "send/start")
}

// medianOf runs b.N commands made fresh by mk and returns the median wall time.
func medianOf(b *testing.B, mk func() *exec.Cmd) time.Duration {
	b.Helper()
	ds := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		c := mk()
		start := time.Now()
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", c.Args, err, out)
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}
