package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// BenchmarkSendProcess times a whole `sotd send` process on one box (route 1:
// the client's own append under flock, then fsync) beside a Go hello-world and
// `sotd version`, built and run in the same run and taking turns, so a
// neighbour's load falls on all alike; and the same send from a binary linked
// from package client alone (testdata/sendonly), to measure what a second,
// client-only binary would buy. "send" is the usual send, whose last_seen
// stamp is fresh; "send-stamp" one whose stamp is due, which also writes the
// registry (made due, untimed, before each run).
//
//	go test -run='^$' -bench=SendProcess -benchtime=300x ./integration/
func BenchmarkSendProcess(b *testing.B) {
	bx := newBox(b, "box")
	bx.serve()
	bx.must("alice", "join")
	bx.must("bob", "join")
	dir := b.TempDir()
	hello := filepath.Join(dir, "hello")
	if err := os.WriteFile(hello+".go", []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command("go", "build", "-o", hello, hello+".go").CombinedOutput(); err != nil {
		b.Fatalf("build the hello-world: %v\n%s", err, out)
	}
	sendOnly := filepath.Join(dir, "sendonly")
	if out, err := exec.Command("go", "build", "-o", sendOnly, "./testdata/sendonly").CombinedOutput(); err != nil {
		b.Fatalf("build the client-only send: %v\n%s", err, out)
	}
	h, err := home.At(bx.home)
	if err != nil {
		b.Fatal(err)
	}
	stale := func() {
		err := registry.Mark(h, "bob", registry.TouchWait, func(e *registry.Entry) error {
			e.LastSeen = registry.Stamp(time.Now().Add(-5 * time.Minute))
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	cmd := func(bin string, args ...string) func() *exec.Cmd {
		return func() *exec.Cmd {
			c := exec.Command(bin, args...)
			c.Env = bx.env("bob")
			c.Dir = dir
			return c
		}
	}
	const text = "a line of about the size agents send to each other"
	runs := []struct {
		name   string
		before func()
		mk     func() *exec.Cmd
		took   []time.Duration
	}{
		{name: "hello", mk: cmd(hello)},
		{name: "version", mk: cmd(sotdBin, "version")},
		{name: "send", mk: cmd(sotdBin, "send", "@alice", text)},
		{name: "send-stamp", before: stale, mk: cmd(sotdBin, "send", "@alice", text)},
		{name: "client-only-send", mk: cmd(sendOnly, "send", "@alice", text)},
	}
	b.ResetTimer()
	for range b.N {
		for i := range runs {
			if runs[i].before != nil {
				b.StopTimer()
				runs[i].before()
				b.StartTimer()
			}
			runs[i].took = append(runs[i].took, timed(b, runs[i].mk()))
		}
	}
	b.StopTimer()
	base := median(runs[0].took)
	for _, r := range runs {
		b.ReportMetric(ms(median(r.took)), r.name+"-ms/median")
		if r.name != "hello" {
			b.ReportMetric(float64(median(r.took))/float64(base), r.name+"/hello")
		}
	}
}

// timed runs c once and returns its wall time.
func timed(b *testing.B, c *exec.Cmd) time.Duration {
	b.Helper()
	start := time.Now()
	if out, err := c.CombinedOutput(); err != nil {
		b.Fatalf("%v: %v\n%s", c.Args, err, out)
	}
	return time.Since(start)
}

func median(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// medianOf runs b.N commands made fresh by mk and returns the median wall time.
func medianOf(b *testing.B, mk func() *exec.Cmd) time.Duration {
	b.Helper()
	ds := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		ds = append(ds, timed(b, mk()))
	}
	return median(ds)
}
