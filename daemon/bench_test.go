//go:build unix

package daemon

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/wire"
)

// BenchmarkCommFile files into one inbox from 32 concurrent senders, each on its
// own connection over the real socket: groupcommit is the daemon as it runs,
// perline a daemon that files every line under its own lock and fsync, and
// odsync the disk's own bound beside them: 32 writers appending lines of the same
// size to one file opened O_DSYNC, each write durable when it returns. The three
// take turns in rounds of 200 lines, so a neighbour's load on this machine falls
// on all of them alike, and the ratios are of one run. cpu-us/line is the whole
// process's CPU per group-committed line, the senders' side of the socket
// included.
//
//	go test -run='^$' -bench=CommFile -benchtime=4000x ./daemon/
func BenchmarkCommFile(b *testing.B) {
	const senders, round = 32, 200
	text := fmt.Sprintf("%0100d", 0)
	daemon := func(maxBatch int) func(int) error {
		r := startOn(b, newHome(b), func(d *Daemon) {
			d.maxBatch = maxBatch
			// The daemon logs at Info as it runs; the rig's Debug log would
			// bill every batch a formatted line.
			d.log = slog.New(slog.DiscardHandler)
		})
		clients := make([]*wire.Client, senders)
		for i := range clients {
			clients[i] = r.dial(b)
		}
		return func(i int) error {
			got, err := call(b, clients[i], wire.CommFile{From: "alice", To: "bob", Text: text, ID: mail.NewID()})
			if err == nil && !got.OK {
				err = fmt.Errorf("%+v", got)
			}
			return err
		}
	}
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "raw.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND|syscall.O_DSYNC, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	line := []byte(`{"from":"alice","to":"bob","repo":"bob","msg":"` + text + `","ts":"2026-05-29T18:04:00Z","id":"` + mail.NewID() + "\"}\n")
	modes := []struct {
		name string
		one  func(sender int) error
		took time.Duration
		cpu  time.Duration
	}{
		{name: "groupcommit", one: daemon(maxBatchLines)},
		{name: "perline", one: daemon(1)},
		{name: "odsync", one: func(int) error { _, err := f.Write(line); return err }},
	}
	b.ResetTimer()
	for done := 0; done < b.N; done += round {
		for i := range modes {
			took, cpu := rate(b, senders, min(round, b.N-done), modes[i].one)
			modes[i].took += took
			modes[i].cpu += cpu
		}
	}
	b.StopTimer()
	perSec := func(i int) float64 { return float64(b.N) / modes[i].took.Seconds() }
	for i, m := range modes {
		b.ReportMetric(perSec(i), m.name+"-lines/s")
	}
	b.ReportMetric(perSec(0)/perSec(1), "groupcommit/perline")
	b.ReportMetric(perSec(0)/perSec(2), "groupcommit/odsync")
	b.ReportMetric(float64(modes[0].cpu.Microseconds())/float64(b.N), "cpu-us/line")
}

// rate calls one from each of n goroutines, total times in all, and returns the
// wall time and the process's CPU time it took.
func rate(b *testing.B, n, total int, one func(sender int) error) (took, cpu time.Duration) {
	var left atomic.Int64
	left.Store(int64(total))
	var wg sync.WaitGroup
	cpu0 := testutil.CPU(b)
	start := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				if err := one(i); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start), testutil.CPU(b) - cpu0
}
