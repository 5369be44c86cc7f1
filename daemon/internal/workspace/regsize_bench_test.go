//go:build unix

package workspace

import (
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/rigtest"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
)

// BenchmarkPollRegistrySize is one tick of the daemon's own registry polls
// (the wake's listing of rows, the dialog watch's pass, the page's list of
// rows) over three fake-agent rows that hold a handle each, on a home whose
// registry lists 10 entries and on one that lists 10,000, in turn in each op,
// the registry unchanged since the last tick. It reports each case's µs and
// the large case's time over the small one's, wall and CPU (the process's:
// getrusage), measured in the same run.
//
//	go test -run='^$' -bench=PollRegistrySize -benchtime=200x ./daemon/internal/workspace/
func BenchmarkPollRegistrySize(b *testing.B) {
	sizes := []int{10, 10000}
	const held = 3
	managers := make([]*Manager, len(sizes))
	for i, n := range sizes {
		h := rigtest.NewHome(b)
		seen := map[string]string{}
		for j := range n {
			seen[fmt.Sprintf("s%05d", j)] = registry.Stamp(time.Now())
		}
		rigtest.WriteRegistry(b, h, seen)
		m := New(h, "box", slog.New(slog.NewTextHandler(io.Discard, nil)), time.Now, rows.NewPTY(rows.Options{}))
		b.Cleanup(m.Close)
		for k := range held {
			spawn, _ := rigtest.FakeSpawn(b, "idle", fmt.Sprintf("Idle-%02d", k))
			if _, err := m.Spawn(spawn); err != nil {
				b.Fatal(err)
			}
		}
		testutil.Eventually(b, 10*time.Second, "the rows to be Ready with their handles", func() bool {
			n := 0
			for _, r := range (WakeRows{m}).List() {
				if r.Ready && r.Handle != "" {
					n++
				}
			}
			return n == held
		})
		managers[i] = m
	}
	tick := func(m *Manager) {
		WakeRows{m}.List()
		if err := (dialogWatch{m: m}).pass(); err != nil {
			b.Fatal(err)
		}
		if _, err := m.List(); err != nil {
			b.Fatal(err)
		}
	}
	// The first tick after the registry changed parses it; the benchmark is
	// of the ticks between changes, which are most of them.
	for _, m := range managers {
		tick(m)
	}
	var took, cpu [2]time.Duration
	for b.Loop() {
		for i, m := range managers {
			start, startCPU := time.Now(), testutil.CPU(b)
			tick(m)
			took[i] += time.Since(start)
			cpu[i] += testutil.CPU(b) - startCPU
		}
	}
	for i, n := range sizes {
		b.ReportMetric(float64(took[i].Microseconds())/float64(b.N), fmt.Sprintf("µs/tick-%d", n))
	}
	ratio := fmt.Sprintf("tick-%d/tick-%d", sizes[1], sizes[0])
	b.ReportMetric(float64(took[1])/float64(took[0]), ratio)
	b.ReportMetric(float64(cpu[1])/float64(max(cpu[0], 1)), "cpu:"+ratio)
}
