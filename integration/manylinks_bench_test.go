package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/link"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/wire"
)

// BenchmarkHubManyLinks is the hub's cost as the boxes linked to it grow from
// 10 to 1,000, both measured in one run: a real hub (`sotd serve`) and guests
// in this process, each its own key, QUIC socket and link, linked 10 first
// (hosts.toml naming 10 guests), then 990 more (hosts.toml rewritten to name
// 1,000). g000 holds bob and g001 alice, each told by its directory; every
// other guest holds nothing told. At each size:
//
//   - cross: alice on g001 files to bob on g000 over g001's link, through
//     the hub, 8 lines at once: p50/p99, and the hub's CPU per line net of
//     what it spends idle (holding the links: heartbeats), measured over the
//     4 s just before (hub-idle-CPU-ms/s), and with it (gross);
//   - join: a handle joins on a guest (round robin over every linked one),
//     whose directory event tells the hub, and that handle at once files to
//     bob over the same link, so the hub waits for the event to name it
//     (mayActFor): p50/p99, and the directory update's hub CPU, this line's
//     net of a cross line's;
//   - offer-all: a line for a handle g002 took just before (carl<j>), which no
//     directory names yet, so the hub offers it to every linked box (these
//     guests make no Ticks promise), one line at a time from the hub's
//     socket, a twentieth as many lines as the others: p50/p99, the offers
//     per line, and the lines answered silent (a guest of this process,
//     on busy cores, answered past the hub's wait) per line;
//   - the hub's resident memory before any line, and at 1,000 its growth
//     per added link.
//
// The 1,000-link run's parts report their hub CPU per line there over that at
// 10 (hub-CPU-1000/10 for cross, the bound being 1.5;
// join-hub-CPU-1000/10) and the hub's memory per added link (hub-KB/link).
// With SOTD_BENCH_HUB_PROFILE set, cross saves a CPU profile of the hub
// (hubProfile).
//
//	go test -run='^$' -bench=HubManyLinks -benchtime=2000x ./integration/
func BenchmarkHubManyLinks(b *testing.B) {
	const small, large = 10, 1000
	n := newNetwork(b)
	ids, lines := guestIDs(b, large)
	n.writeHosts("hb", n.hostsTOML(n.quic, n.ws, lines[:small]...))
	n.startHub()
	hub := n.daemons["hb"]
	pid := hub.cmd.Process.Pid

	var offered atomic.Int64 // offers the guests were sent
	// g000 holds bob and g001 alice; g002 holds every carl<j>, each taken just
	// before its line came, which it tells the hub as it files it, as a
	// daemon's next registry poll does.
	held := map[int]string{0: "bob", 1: "alice"}
	handler := func(i int) link.Handler {
		return func(_ context.Context, c *link.Conn, op string, payload json.RawMessage) (any, error) {
			if op != wire.OpCommFile { // as a daemon older than comm.file.batch answers
				return nil, &wire.Refusal{Op: op, Code: wire.CodeUnknownOp, Sentence: "unknown op: " + op}
			}
			var req wire.CommFile
			if err := wire.DecodePayload(payload, &req); err != nil {
				return nil, err
			}
			offered.Add(1)
			switch {
			case req.To == held[i]:
			case i == 2 && strings.HasPrefix(req.To, "carl"):
				if err := c.SendEvent(wire.OpLinkDirectory, wire.LinkDirectory{Added: []string{req.To}}); err != nil {
					return nil, err
				}
			default:
				return nil, &wire.Refusal{Code: wire.CodeNotHere, Sentence: "no box knows that handle: " + req.To}
			}
			return wire.CommFiled{OK: true, To: req.To}, nil
		}
	}
	var conns []*link.Conn
	// grow links guests up to want and has each tell its full directory.
	grow := func(want int) {
		from := len(conns)
		more := linkGuests(b, n, ids[from:want], false, func(i int) link.Handler { return handler(from + i) })
		if b.Failed() {
			b.FailNow()
		}
		conns = append(conns, more...)
		for i := from; i < want; i++ {
			var told []string
			if h := held[i]; h != "" {
				told = []string{h}
			}
			if err := conns[i].SendEvent(wire.OpLinkDirectory, wire.LinkDirectory{Full: true, Added: told}); err != nil {
				b.Fatal(err)
			}
		}
		waitLinks(b, hub, int64(want))
		settle(b, pid)
	}

	var joins, carls atomic.Int64 // name each joined handle once across runs
	// run measures the hub holding size links; at10 is what it measured at
	// 10, nil when that is this run: each part reports its own ratio to it.
	type costs struct{ cross, join, rss float64 }
	run := func(b *testing.B, size int, at10 *costs) costs {
		// Before any line: what the links themselves hold, not the garbage
		// of a run the runtime has yet to give back.
		c := costs{}
		c.rss, _ = residentMB(pid)
		b.Run("cross", func(b *testing.B) {
			stopProfile := hubProfile(b, n.hub)
			cross := linkLatencies(b, 8, b.N, pid, func(int) (*link.Conn, string) { return conns[1], "alice" })
			stopProfile()
			c.cross = cross.hubMs
			cross.report(b, "cross")
			b.ReportMetric(c.rss, "hub-RSS-MB")
			if at10 != nil && at10.cross > 0 {
				b.ReportMetric(c.cross/at10.cross, "hub-CPU-1000/10")
			}
			if at10 != nil && at10.rss > 0 {
				b.ReportMetric((c.rss-at10.rss)*1024/float64(size-small), "hub-KB/link")
			}
		})
		b.Run("join", func(b *testing.B) {
			join := linkLatencies(b, 8, b.N, pid, func(int) (*link.Conn, string) {
				i := joins.Add(1)
				g := conns[int(i)%size]
				h := fmt.Sprintf("joiner%d", i)
				if err := g.SendEvent(wire.OpLinkDirectory, wire.LinkDirectory{Added: []string{h}}); err != nil {
					b.Errorf("%s's directory event: %v", g.Box(), err)
				}
				return g, h
			})
			c.join = join.hubMs
			join.report(b, "join")
			b.ReportMetric(c.join-c.cross, "dir-hub-CPU-ms/update")
			if at10 != nil && at10.join > 0 {
				b.ReportMetric(c.join/at10.join, "join-hub-CPU-1000/10")
			}
		})
		b.Run("offer-all", func(b *testing.B) {
			offered.Store(0)
			var silent atomic.Int64 // lines a box did not answer in time
			// One line at a time: eight at once are 8,000 offers to guests
			// that share this process, which on two busy cores outlast the
			// hub's wait and measure the test's own overload.
			client := senders(n.hub, "hank", 1)
			defer closeAll(client)
			total := max(b.N/20, 1) // each line is an offer to every box
			report(b, "offer-all", testutil.Latencies(b, client, total, func(c *wire.Client, j int) error {
				to := fmt.Sprintf("carl%d", carls.Add(1))
				var res wire.CommFiled
				err := c.Call(context.Background(), wire.OpCommFile, wire.CommFile{From: "hank", To: to, Text: "bench", ID: mail.NewID()}, &res)
				if r, ok := wire.RefusalOf(err); ok && r.Code == wire.CodeNoAnswer {
					// A guest of this busy process answered past the
					// hub's wait: counted, as the measure it is.
					silent.Add(1)
					return nil
				}
				if err != nil || !res.OK {
					return fmt.Errorf("comm.file to @%s = %+v, %v; want g002's ok", to, res, err)
				}
				return nil
			}))
			b.ReportMetric(float64(offered.Load())/float64(total), "offers/line")
			b.ReportMetric(float64(silent.Load())/float64(total), "silent/line")
		})
		return c
	}

	grow(small)
	var at10 costs
	b.Run(fmt.Sprintf("links=%d", small), func(b *testing.B) { at10 = run(b, small, nil) })
	n.writeHosts("hb", n.hostsTOML(n.quic, n.ws, lines...))
	grow(large)
	b.Run(fmt.Sprintf("links=%d", large), func(b *testing.B) { run(b, large, &at10) })
}

// guestIDs makes count guest boxes' keys (g000, g001, ...) and their
// hosts.toml tables.
func guestIDs(b *testing.B, count int) ([]*identity.Identity, []hostLine) {
	keys := home.Home{Dir: b.TempDir()}
	ids := make([]*identity.Identity, count)
	lines := make([]hostLine, count)
	for i := range ids {
		name := fmt.Sprintf("g%03d", i)
		id, err := identity.Load(keys, name)
		if err != nil {
			b.Fatal(err)
		}
		ids[i], lines[i] = id, hostLine{name: name, key: id.Fingerprint()}
	}
	return ids, lines
}

// linkRun is one run of lines over a guest's link: each line's wait, sorted,
// the hub's CPU per line net of its idle rate, and that rate.
type linkRun struct {
	waits []time.Duration
	hubMs float64 // net of idle
	gross float64 // idle included
	idle  float64 // CPU ms per second
}

func (r linkRun) report(b *testing.B, name string) {
	report(b, name, r.waits)
	b.ReportMetric(r.hubMs, name+"-hub-CPU-ms/line")
	b.ReportMetric(r.gross, name+"-hub-CPU-gross-ms/line")
	b.ReportMetric(r.idle, "hub-idle-CPU-ms/s")
}

// linkLatencies files total lines to bob, conc at once, line j over the link
// and from the handle line(j) names (which may first tell the hub a directory
// event), and measures the hub's (pid's) CPU per line net of what it spends
// idle over the four seconds before.
func linkLatencies(b *testing.B, conc, total, pid int, line func(j int) (*link.Conn, string)) linkRun {
	b.Helper()
	idle := idleRate(b, pid, 4*time.Second)
	cpu0, _ := cpuOf(pid)
	start := time.Now()
	waits := testutil.Latencies(b, make([]struct{}, conc), total, func(_ struct{}, j int) error {
		c, from := line(j)
		req := wire.CommFile{From: from, To: "bob", Text: "bench " + strconv.Itoa(j), ID: mail.NewID()}
		res, err := c.File(context.Background(), req)
		if err != nil || !res.OK {
			return fmt.Errorf("comm.file from @%s over %s's link: %+v, %v", from, c.Box(), res, err)
		}
		return nil
	})
	cpu1, ok := cpuOf(pid)
	if !ok {
		return linkRun{waits: waits}
	}
	gross := ms(cpu1 - cpu0)
	busy := gross - idle*time.Since(start).Seconds()
	return linkRun{waits: waits, hubMs: max(busy, 0) / float64(total), gross: gross / float64(total), idle: idle}
}

// settle waits until pid's idle CPU rate has stopped falling (two 2 s
// windows within a fifth of each other, or 40 s): the links that just came up
// and their directories cost the hub for seconds after, which a line's idle
// baseline must not count.
func settle(b *testing.B, pid int) {
	b.Helper()
	last := idleRate(b, pid, 2*time.Second)
	for deadline := time.Now().Add(40 * time.Second); time.Now().Before(deadline); {
		now := idleRate(b, pid, 2*time.Second)
		if now >= last*0.8 {
			return
		}
		last = now
	}
}

// idleRate is the CPU milliseconds per second pid spends over d while this
// process sends it nothing, 0 where /proc does not tell it.
func idleRate(b *testing.B, pid int, d time.Duration) float64 {
	b.Helper()
	cpu0, ok0 := cpuOf(pid)
	start := time.Now()
	time.Sleep(d) // a measurement window, not a wait for an event
	cpu1, ok1 := cpuOf(pid)
	if !ok0 || !ok1 {
		return 0
	}
	return ms(cpu1-cpu0) / time.Since(start).Seconds()
}
