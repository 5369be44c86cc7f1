//go:build jetstream

package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sotcomm/sotd/internal/testutil"
)

// BenchmarkCrossBoxBesideJetStream times durable filing at 64 concurrent
// senders three ways in one run, on this machine: a NATS JetStream server in
// this process (file store, sync_interval: always, so each publish is
// acknowledged after its fsync) taking one publish per publisher at a time;
// comm.file from ga to bob on gb through the hub (each line fsynced on gb);
// and the same senders filing through gb's own socket. It reports each one's
// p50/p99 and rate, and the ratios goal 2 of issue 13 asks for.
//
//	go test -tags jetstream -run='^$' -bench=BesideJetStream -benchtime=4000x ./daemon/
func BenchmarkCrossBoxBesideJetStream(b *testing.B) {
	const senders = 64
	js := jetStream(b)
	_, ga, gb := threeBoxes(b)
	// Each run resets the timer, which drops metrics already reported: all
	// are reported at the end.
	var metrics []func()
	run := func(name string, timed func() []time.Duration) []time.Duration {
		start := time.Now()
		d := timed()
		rate := float64(len(d)) / time.Since(start).Seconds()
		metrics = append(metrics, func() {
			b.ReportMetric(rate, name+"-msgs/s")
			b.ReportMetric(ms(testutil.Percentile(d, 50)), name+"-ms/p50")
			b.ReportMetric(ms(testutil.Percentile(d, 99)), name+"-ms/p99")
		})
		return d
	}
	jsd := run("jetstream", func() []time.Duration { return publish(b, js, senders, b.N) })
	cross := run("cross", func() []time.Duration { return timeSends(b, ga, senders) })
	same := run("same", func() []time.Duration { return timeSends(b, gb, senders) })
	for _, m := range metrics {
		m()
	}
	b.ReportMetric(float64(testutil.Percentile(cross, 50))/float64(testutil.Percentile(jsd, 50)), "p50-cross/jetstream")
	b.ReportMetric(float64(testutil.Percentile(cross, 99))/float64(testutil.Percentile(same, 99)), "p99-cross/same")
}

// jetStream starts a JetStream server with a file store that syncs every
// write, and makes one stream on it.
func jetStream(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	conf := filepath.Join(dir, "js.conf")
	text := fmt.Sprintf("listen: 127.0.0.1:-1\nno_sys_acc: true\njetstream {\n  store_dir: %q\n  sync_interval: always\n}\n", filepath.Join(dir, "store"))
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		b.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(conf)
	if err != nil {
		b.Fatal(err)
	}
	opts.NoSigs, opts.NoLog = true, true
	s, err := server.NewServer(opts)
	if err != nil {
		b.Fatal(err)
	}
	go s.Start()
	b.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	if !s.ReadyForConnections(10 * time.Second) {
		b.Fatal("the JetStream server did not start within 10s")
	}
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	j, err := jetstream.New(nc)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := j.CreateStream(context.Background(), jetstream.StreamConfig{Name: "MAIL", Subjects: []string{"mail.>"}, Storage: jetstream.FileStorage}); err != nil {
		b.Fatal(err)
	}
	return s.ClientURL()
}

// publish makes total durable publishes from conc publishers, each its own
// connection with one publish out at a time, as a sender waits for "filed";
// it returns each acknowledgement's wait, sorted.
func publish(b *testing.B, url string, conc, total int) []time.Duration {
	b.Helper()
	pubs := make([]jetstream.JetStream, conc)
	for i := range pubs {
		nc, err := nats.Connect(url)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(nc.Close)
		if pubs[i], err = jetstream.New(nc); err != nil {
			b.Fatal(err)
		}
	}
	return testutil.Latencies(b, pubs, total, func(js jetstream.JetStream, j int) error {
		_, err := js.Publish(context.Background(), "mail.bob", []byte(fmt.Sprintf("bench %d", j)))
		return err
	})
}
