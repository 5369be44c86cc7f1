package daemon

import (
	"fmt"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/wire"
)

// BenchmarkCrossBox times comm.file from ga to bob on gb through the hub, all
// three daemons in this process over real QUIC on loopback and each line filed
// and fsynced on gb, beside the same senders filing through gb's own socket.
//
//	go test -run='^$' -bench=CrossBox -benchtime=2000x ./daemon/
func BenchmarkCrossBox(b *testing.B) {
	_, ga, gb := threeBoxes(b)
	for _, conc := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("senders=%d", conc), func(b *testing.B) {
			cross := timeSends(b, ga, conc)
			same := timeSends(b, gb, conc)
			for _, m := range []struct {
				name string
				d    []time.Duration
			}{{"cross", cross}, {"same", same}} {
				b.ReportMetric(ms(testutil.Percentile(m.d, 50)), m.name+"-ms/p50")
				b.ReportMetric(ms(testutil.Percentile(m.d, 99)), m.name+"-ms/p99")
			}
		})
	}
}

// timeSends sends b.N lines to bob from conc connections to from's socket and
// returns each answer's wait, sorted.
func timeSends(b *testing.B, from *netBox, conc int) []time.Duration {
	clients := make([]*wire.Client, conc)
	for i := range clients {
		clients[i] = from.dial(b)
	}
	return testutil.Latencies(b, clients, b.N, func(c *wire.Client, _ int) error {
		if res, err := call(b, c, wire.CommFile{From: "alice", To: "bob", Text: "bench", ID: mail.NewID()}); err != nil || !res.OK {
			return fmt.Errorf("comm.file: %+v, %v", res, err)
		}
		return nil
	})
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
