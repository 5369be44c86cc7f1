//go:build !windows

package workspace

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/rigtest"
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/rows/rowstest"
	"github.com/sotcomm/sotd/wake"
)

// readyRows runs n fake-agent Claude rows, handles Idle-00…, on a new home and
// waits until all are Ready at their prompts; the benchmark's end removes them.
func readyRows(b *testing.B, k rigtest.BackendKind, n int) (*Manager, rows.Backend, home.Home) {
	h := rigtest.NewHome(b)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	backend := k.Make(b)(h, "box", rows.Options{})
	m := New(h, "box", log, time.Now, backend)
	b.Cleanup(m.Close)
	for i := range n {
		spawn, _ := rigtest.FakeSpawn(b, "idle", fmt.Sprintf("Idle-%02d", i))
		ref, err := m.Spawn(spawn)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { m.Destroy(ref.WorkspaceID) })
	}
	// Each row is a process that draws its screen: 200 take a while.
	testutil.Eventually(b, 5*time.Second+time.Duration(n)*100*time.Millisecond, fmt.Sprintf("%d Ready rows", n), func() bool {
		ready := 0
		for _, r := range (WakeRows{m}).List() {
			if r.Ready {
				ready++
			}
		}
		return ready == n
	})
	return m, backend, h
}

// reportCPU reports the CPU seconds a minute that do costs when it runs every
// period (getrusage of the process and its waited-for children), and the tmux
// server's own share where there is one.
func reportCPU(b *testing.B, backend rows.Backend, period time.Duration, do func()) {
	server := rowstest.TmuxServerCPU(b, backend)
	before, serverBefore, passes := testutil.CPUWithChildren(b), server(), 0
	for b.Loop() {
		do()
		passes++
	}
	cpu, serverCPU := testutil.CPUWithChildren(b)-before, server()-serverBefore
	perMinute := func(d time.Duration) float64 { return d.Seconds() / float64(passes) * float64(time.Minute/period) }
	b.ReportMetric(perMinute(cpu), "cpu-s/min")
	if serverBefore >= 0 {
		b.ReportMetric(perMinute(serverCPU), "tmux-server-cpu-s/min")
	}
}

// BenchmarkWakeIdleRows is the daemon's wake loop over 50 real fake-agent rows
// idle at their prompts with no unread mail, one pass per op, as it runs every
// 2 s: it lists the rows, reads the registry and counts 50 inboxes. It reports
// CPU seconds a minute (getrusage of the process and its waited-for children;
// the tmux server's own share is reported apart). Goal: ≤ 0.6.
func BenchmarkWakeIdleRows(b *testing.B) {
	for _, k := range rigtest.BackendKinds(b) {
		b.Run(k.Name, func(b *testing.B) {
			m, backend, h := readyRows(b, k, 50)
			log := slog.New(slog.NewTextHandler(io.Discard, nil))
			loop := m.WakeLoop(filer.New(h), nil)
			loop.Log = log
			ticks := make(chan time.Time)
			loop.Ticker = func(time.Duration) (<-chan time.Time, func()) { return ticks, func() {} }
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error)
			go func() { done <- loop.Run(ctx) }()
			ticks <- time.Now() // the first pass, with its restart look at every row, is over
			// Each tick is taken once the pass before it is over.
			reportCPU(b, backend, wake.Every, func() { ticks <- time.Now() })
			cancel()
			<-done
		})
	}
}

// BenchmarkWakeRowsScale is the wake loop's CPU over 10 and over 200 idle rows
// in the same run: b.N passes of one loop, then b.N of the other, each phase
// ended by stopping its loop (which finishes the pass it is in), so each
// one's CPU is its own. It reports CPU seconds a second of each (the process
// and its waited-for children, as the wake runs one pass every wake.Every),
// the tmux servers' share apart, and the 200 rows' CPU per row over the 10
// rows'. Goal: under 0.05 CPU-s/s at 200.
//
//	go test -run='^$' -bench=WakeRowsScale -benchtime=20x ./daemon/internal/workspace/
func BenchmarkWakeRowsScale(b *testing.B) {
	sizes := []int{10, 200}
	for _, k := range rigtest.BackendKinds(b) {
		b.Run(k.Name, func(b *testing.B) {
			type phase struct {
				tick   chan time.Time
				stop   func()
				server func() time.Duration
			}
			phases := make([]phase, len(sizes))
			for i, n := range sizes {
				m, backend, h := readyRows(b, k, n)
				loop := m.WakeLoop(filer.New(h), nil)
				loop.Log = slog.New(slog.DiscardHandler)
				tick := make(chan time.Time)
				loop.Ticker = func(time.Duration) (<-chan time.Time, func()) { return tick, func() {} }
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error)
				go func() { done <- loop.Run(ctx) }()
				var once sync.Once
				stop := func() { once.Do(func() { cancel(); <-done }) }
				b.Cleanup(stop)
				tick <- time.Now() // the first pass, with its restart look at every row, is over
				phases[i] = phase{tick: tick, stop: stop, server: rowstest.TmuxServerCPU(b, backend)}
			}
			b.ResetTimer()
			perSecond := func(d time.Duration) float64 {
				return d.Seconds() / float64(b.N) * float64(time.Second) / float64(wake.Every)
			}
			var cpu []time.Duration
			for i, p := range phases {
				before, serverBefore := testutil.CPUWithChildren(b), p.server()
				for range b.N {
					p.tick <- time.Now()
				}
				p.stop()
				cpu = append(cpu, testutil.CPUWithChildren(b)-before)
				b.ReportMetric(perSecond(cpu[i]), fmt.Sprintf("cpu-s/s-%d", sizes[i]))
				if serverBefore >= 0 {
					b.ReportMetric(perSecond(p.server()-serverBefore), fmt.Sprintf("tmux-server-cpu-s/s-%d", sizes[i]))
				}
			}
			b.ReportMetric(cpu[1].Seconds()/float64(sizes[1])/(cpu[0].Seconds()/float64(sizes[0])), "per-row-200/per-row-10")
		})
	}
}

// BenchmarkDialogWatch is the dialog watch's pass every DialogEvery over 50
// Claude rows: idle ones (no turn, so no screen is read) and working ones
// (a turn runs in each, so each screen is read and tested).
func BenchmarkDialogWatch(b *testing.B) {
	for _, k := range rigtest.BackendKinds(b) {
		for _, working := range []bool{false, true} {
			name := k.Name + "/idle"
			if working {
				name = k.Name + "/working"
			}
			b.Run(name, func(b *testing.B) {
				m, backend, h := readyRows(b, k, 50)
				if working {
					for i := range 50 {
						st := registry.Status{Verb: registry.VerbPrompt, Text: registry.FloorUser, HasText: true}
						if err := registry.WriteStatus(h, fmt.Sprintf("Idle-%02d", i), st, time.Now(), registry.Ruled()); err != nil {
							b.Fatal(err)
						}
					}
				}
				w := dialogWatch{m: m, every: DialogEvery}
				reportCPU(b, backend, DialogEvery, func() {
					if err := w.pass(); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}
