package link

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// BenchmarkCall is one forward's round trip over a link on loopback: the guest
// sends comm.file, the hub's handler answers at once. It reports the median and
// p99 of single calls.
func BenchmarkCall(b *testing.B) {
	for _, tr := range transports {
		b.Run(tr.name, func(b *testing.B) {
			_, g, _ := pair(b, tr.dial, Config{Handler: echo("hub")}, Config{})
			ctx := context.Background()
			req := wire.CommFile{From: "alice-box", To: "bob-box", Text: "a line of about the usual length for a message between sessions", ID: "01J0000000000000000000000"}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				var got wire.CommFiled
				if err := g.Call(ctx, wire.OpCommFile, req, &got); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			reportQuantiles(b, lat)
		})
	}
}

// BenchmarkHandshake is a guest's whole dial: TLS with pins, hello, link up.
func BenchmarkHandshake(b *testing.B) {
	for _, tr := range transports {
		b.Run(tr.name, func(b *testing.B) {
			hid, gid := newID(b, "hub"), newID(b, "guest")
			h := startHub(b, hid, map[string]string{gid.Fingerprint(): "guest"}, Config{})
			cfg := Config{Box: "guest"}.withDefaults()
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				c, err := tr.dial(context.Background(), cfg, h.target(gid))
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
				b.StopTimer()
				c.Close()
				(<-h.links).Close()
				b.StartTimer()
			}
			reportQuantiles(b, lat)
		})
	}
}

func reportQuantiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Nanoseconds()) / 1e3 }
	b.ReportMetric(q(0.5), "p50-µs")
	b.ReportMetric(q(0.99), "p99-µs")
}
