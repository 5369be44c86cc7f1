package daemon

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/wire"
)

// BenchmarkCommFile files into one inbox from 32 concurrent senders, each on its
// own connection over the real socket: groupcommit is the daemon as it runs,
// perline files every line under its own lock and fsync.
func BenchmarkCommFile(b *testing.B) {
	const senders = 32
	for _, mode := range []struct {
		name     string
		maxBatch int
	}{{"groupcommit", maxBatchLines}, {"perline", 1}} {
		b.Run(mode.name, func(b *testing.B) {
			r := startOn(b, newHome(b), func(d *Daemon) { d.maxBatch = mode.maxBatch })
			clients := make([]*wire.Client, senders)
			for i := range clients {
				clients[i] = r.dial(b)
			}
			text := fmt.Sprintf("%0100d", 0)
			var left atomic.Int64
			left.Store(int64(b.N))
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for _, c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for left.Add(-1) >= 0 {
						got, err := call(b, c, wire.CommFile{From: "alice", To: "bob", Text: text, ID: mail.NewID()})
						if err != nil || !got.OK {
							b.Errorf("%+v, %v", got, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "lines/s")
		})
	}
}
