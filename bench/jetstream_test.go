package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sotcomm/sotd/daemon"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// BenchmarkCrossBoxBesideJetStream times durable filing at 64 concurrent
// senders three ways in one run, on this machine: a NATS JetStream server in
// this process (file store, sync_interval: always, so each publish is
// acknowledged after its fsync) taking one publish per publisher at a time;
// comm.file from ga to bob on gb through the hub hb (each line fsynced on gb);
// and the same senders filing through gb's own socket. The three daemons run in
// this process through daemon's public API, linked over real QUIC on loopback.
// It reports each one's p50/p99 and rate, and the ratios p50-cross/jetstream
// and p99-cross/same.
func BenchmarkCrossBoxBesideJetStream(b *testing.B) {
	const senders = 64
	js := jetStream(b)
	ga, gb := threeBoxes(b)
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

// box is one daemon's home and socket.
type box struct {
	name string
	home home.Home
}

// threeBoxes starts hub hb and guests ga (alice) and gb (bob), and returns the
// guests once a line from ga reaches bob on gb.
func threeBoxes(b *testing.B) (ga, gb box) {
	b.Helper()
	b.Setenv(home.EnvSocket, "")
	hb := newBox(b, "hb", "hank")
	ga, gb = newBox(b, "ga", "alice"), newBox(b, "gb", "bob")
	hosts := filepath.Join(b.TempDir(), "hosts.toml")
	toml := fmt.Sprintf("hub = \"hb\"\n[host.hb]\ndaemon = true\naddr = %q\nkey = %q\n[host.ga]\ndaemon = true\nkey = %q\n[host.gb]\ndaemon = true\nkey = %q\n",
		testutil.FreeUDP(b), key(b, hb), key(b, ga), key(b, gb))
	if err := os.WriteFile(hosts, []byte(toml), 0o600); err != nil {
		b.Fatal(err)
	}
	for _, x := range []box{hb, ga, gb} {
		start(b, x, hosts)
	}
	c := dial(b, ga)
	testutil.Eventually(b, 30*time.Second, "a line from ga to bob on gb, through the hub", func() bool {
		res, err := file(c)
		return err == nil && res.OK
	})
	return ga, gb
}

// newBox makes a box's home with handle live in its registry.
func newBox(b *testing.B, name, handle string) box {
	b.Helper()
	h, err := home.At(testutil.ShortDir(b, "bj"))
	if err != nil {
		b.Fatal(err)
	}
	if err := h.Ensure(); err != nil {
		b.Fatal(err)
	}
	now := registry.Stamp(time.Now())
	doc, _ := json.Marshal(map[string]any{"protocol_version": 1, "agents": map[string]any{
		handle: map[string]any{"host": name, "repo": handle, "root": "/src/" + handle, "joined": now, "last_seen": now},
	}})
	if err := home.WriteAtomic(h.Registry(), doc); err != nil {
		b.Fatal(err)
	}
	return box{name: name, home: h}
}

func key(b *testing.B, x box) string {
	b.Helper()
	id, err := identity.Load(x.home, x.name)
	if err != nil {
		b.Fatal(err)
	}
	return id.Fingerprint()
}

// start runs x's daemon until the benchmark ends.
func start(b *testing.B, x box, hosts string) {
	b.Helper()
	d, err := daemon.New(daemon.Config{Home: x.home, Host: x.name, HostsPath: hosts, Log: slog.New(slog.DiscardHandler), HTTP: daemon.HTTPOff})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("%s's daemon: %v", x.name, err)
		}
	})
	testutil.Eventually(b, 10*time.Second, x.name+"'s daemon to listen", func() bool { return testutil.Answers(x.home.Socket(x.name)) })
}

func dial(b *testing.B, x box) *wire.Client {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := wire.Dial(ctx, x.home.Socket(x.name), wire.Hello{Role: wire.RoleCLI, Host: x.name, Protocol: wire.Protocol})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

// file sends one line from alice to bob, as a sender waits for "filed".
func file(c *wire.Client) (wire.CommFiled, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var res wire.CommFiled
	err := c.Call(ctx, wire.OpCommFile, wire.CommFile{From: "alice", To: "bob", Text: "bench", ID: mail.NewID()}, &res)
	return res, err
}

// timeSends sends b.N lines to bob from conc connections to from's socket and
// returns each answer's wait, sorted.
func timeSends(b *testing.B, from box, conc int) []time.Duration {
	clients := make([]*wire.Client, conc)
	for i := range clients {
		clients[i] = dial(b, from)
	}
	return testutil.Latencies(b, clients, b.N, func(c *wire.Client, _ int) error {
		if res, err := file(c); err != nil || !res.OK {
			return fmt.Errorf("comm.file: %+v, %v", res, err)
		}
		return nil
	})
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

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
