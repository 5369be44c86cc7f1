package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/link"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/web"
	"github.com/sotcomm/sotd/wire"
)

// BenchmarkCrossBoxSend times comm.file from a sender on ga to bob on gb, guest
// to hub to guest, each line filed and fsynced on gb, at 1, 8 and 64 concurrent
// senders, beside the same number of senders filing to bob through gb's own
// daemon in the same run; then a whole `sotd send` process each way.
//
//	go test -run='^$' -bench=CrossBoxSend -benchtime=2000x ./integration/
func BenchmarkCrossBoxSend(b *testing.B) {
	n := newNetwork(b, "ga", "gb")
	n.linkAll("ga", "gb")
	n.start("ga", "gb")
	ga, gb := n.boxes["ga"], n.boxes["gb"]
	ga.must("alice", "join")
	gb.must("bob", "join")
	gb.must("carol", "join")
	for _, conc := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("senders=%d", conc), func(b *testing.B) {
			cross := latencies(b, conc, b.N, ga, "alice", "bob")
			same := latencies(b, conc, b.N, gb, "carol", "bob")
			report(b, "cross", cross)
			report(b, "same", same)
			b.ReportMetric(float64(testutil.Percentile(cross, 50))/float64(testutil.Percentile(same, 50)), "p50-cross/same")
		})
	}
	b.Run("process", func(b *testing.B) {
		cmd := func(bx *box, from, to string) func() *exec.Cmd {
			dir := b.TempDir()
			return func() *exec.Cmd {
				c := exec.Command(sotdBin, "send", "@"+to, "a line of about the size agents send to each other")
				c.Env = bx.env(from)
				c.Dir = dir
				return c
			}
		}
		cross := medianOf(b, cmd(ga, "alice", "bob"))
		same := medianOf(b, cmd(gb, "carol", "bob"))
		b.ReportMetric(ms(cross), "cross-ms/median")
		b.ReportMetric(ms(same), "same-ms/median")
	})
}

// latencies sends total lines from `from` on bx to `to` over conc connections
// at once, and returns each answer's wait, sorted.
func latencies(b *testing.B, conc, total int, bx *box, from, to string) []time.Duration {
	b.Helper()
	clients := senders(bx, from, conc)
	defer closeAll(clients)
	return testutil.Latencies(b, clients, total, func(c *wire.Client, j int) error {
		req := wire.CommFile{From: from, To: to, Text: "bench " + strconv.Itoa(j), ID: mail.NewID()}
		var res wire.CommFiled
		if err := c.Call(context.Background(), wire.OpCommFile, req, &res); err != nil || !res.OK {
			return fmt.Errorf("comm.file from %s on %s: %+v, %v", from, bx.host, res, err)
		}
		return nil
	})
}

// senders dials n clients of bx's socket as from; closeAll closes them once
// their sub-benchmark ends, so its many runs stay within the daemon's cap on
// connections.
func senders(bx *box, from string, n int) []*wire.Client {
	clients := make([]*wire.Client, n)
	for i := range clients {
		clients[i] = bx.dial(from)
	}
	return clients
}

func closeAll(clients []*wire.Client) {
	for _, c := range clients {
		c.Close()
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func report(b *testing.B, name string, sorted []time.Duration) {
	b.ReportMetric(ms(testutil.Percentile(sorted, 50)), name+"-ms/p50")
	b.ReportMetric(ms(testutil.Percentile(sorted, 99)), name+"-ms/p99")
}

// BenchmarkHubOf200Links runs a real hub holding 200 links from guests in this
// process (each its own key, QUIC socket and link) and times a comm.file on the
// hub's socket for a handle one guest holds: "directory" when that guest told
// the hub so, "offer-all" when the guest holding it told the hub no directory,
// so the hub offers it to every box whose directory has not come (199 or all
// 200); then, once every guest has told its full directory, "unclaimed": a
// handle no box holds, answered not_here. These guests make no Ticks promise,
// as boxes older than it. Then the same guests link again promising Ticks and
// tick every 1.5 s, as guest daemons do: "ticks/unclaimed" to one unheld
// handle (the negative cache answers most), "ticks/unclaimed-fresh" to a new
// unheld handle each line (each waits for every guest's next tick, and no
// guest is offered it), and "ticks/joined" to a handle that joined on g002
// just before the line, which g002 tells only by its next tick (the hub waits
// for it and offers the line to g002 alone). It reports p50/p99, the offers the
// guests were sent per line, the CPU time the hub and this process spent per
// line, and the hub's resident memory; with
// SOTD_BENCH_HUB_PROFILE set, a CPU profile of the hub for each (hubProfile).
//
//	go test -run='^$' -bench=HubOf200Links -benchtime=2000x ./integration/
func BenchmarkHubOf200Links(b *testing.B) {
	const guests = 200
	n := newNetwork(b)
	ids, lines := guestIDs(b, guests)
	n.writeHosts("hb", n.hostsTOML(n.quic, n.ws, lines...))
	n.startHub()
	hub := n.daemons["hb"]

	// g000 holds bob and tells the hub; g001 holds carl and tells the hub
	// nothing until the unclaimed round; every other guest holds nothing.
	var offered atomic.Int64 // comm.file requests the guests were sent
	// measure starts what each part reports besides its latencies: the hub's
	// profile, the offers the guests were sent and the CPU spent; the returned
	// func reports them per line.
	measure := func(b *testing.B) func() {
		stopProfile := hubProfile(b, n.hub)
		offered.Store(0)
		cpu := cpuSpent(b, hub.cmd.Process.Pid)
		return func() {
			cpu()
			b.ReportMetric(float64(offered.Load())/float64(b.N), "offers/op")
			stopProfile()
		}
	}
	answer := func(holds func(string) bool) link.Handler {
		return func(_ context.Context, _ *link.Conn, op string, payload json.RawMessage) (any, error) {
			if op != wire.OpCommFile { // as a daemon older than comm.file.batch answers
				return nil, &wire.Refusal{Op: op, Code: wire.CodeUnknownOp, Sentence: "unknown op: " + op}
			}
			var req wire.CommFile
			if err := wire.DecodePayload(payload, &req); err != nil {
				return nil, err
			}
			offered.Add(1)
			if holds(req.To) {
				return wire.CommFiled{OK: true, To: req.To}, nil
			}
			return nil, &wire.Refusal{Code: wire.CodeNotHere, Sentence: "no box knows that handle: " + req.To}
		}
	}
	holdsOne := func(handle string) func(string) bool { return func(h string) bool { return h == handle } }
	var links atomic.Int64 // links the hub has admitted so far, by its log
	conns := linkGuests(b, n, ids, false, func(i int) link.Handler { return answer(holdsOne(map[int]string{0: "bob", 1: "carl"}[i])) })
	if b.Failed() {
		return
	}
	if err := conns[0].SendEvent(wire.OpLinkDirectory, wire.LinkDirectory{Full: true, Added: []string{"bob"}}); err != nil {
		b.Fatal(err)
	}
	links.Add(guests)
	waitLinks(b, hub, links.Load())
	for _, tc := range []struct{ name, to string }{{"directory", "bob"}, {"offer-all", "carl"}} {
		for _, conc := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/senders=%d", tc.name, conc), func(b *testing.B) {
				done := measure(b)
				report(b, tc.name, latencies(b, conc, b.N, n.hub, "hank", tc.to))
				done()
				if rss, ok := residentMB(hub.cmd.Process.Pid); ok {
					b.ReportMetric(rss, "hub-RSS-MB")
				}
			})
		}
	}
	for i, c := range conns {
		held := map[int][]string{0: {"bob"}, 1: {"carl"}}[i]
		if err := c.SendEvent(wire.OpLinkDirectory, wire.LinkDirectory{Full: true, Added: held}); err != nil {
			b.Fatal(err)
		}
	}
	var fresh atomic.Int64 // names each fresh unheld handle once across runs
	unheld := func(b *testing.B, conc int, each bool) {
		client := senders(n.hub, "hank", conc)
		defer closeAll(client)
		defer measure(b)()
		report(b, "unclaimed", testutil.Latencies(b, client, b.N, func(c *wire.Client, _ int) error {
			to := "nobody"
			if each { // past the negative cache
				to = fmt.Sprintf("nobody%d", fresh.Add(1))
			}
			var res wire.CommFiled
			err := c.Call(context.Background(), wire.OpCommFile, wire.CommFile{From: "hank", To: to, Text: "bench", ID: mail.NewID()}, &res)
			if r, ok := wire.RefusalOf(err); !ok || r.Code != wire.CodeNotHere {
				return fmt.Errorf("comm.file to @%s = %+v, %v; want not_here", to, res, err)
			}
			return nil
		}))
	}
	b.Run("unclaimed/senders=8", func(b *testing.B) { unheld(b, 8, false) })

	// The same 200 guests link again promising Ticks, as guest daemons do: each
	// tells its full directory, then an event every directory poll (1.5 s),
	// empty but for g002, which tells there the handles that "joined" on it
	// since (a session that joined right before the line was sent to it).
	var mu sync.Mutex
	// held: what joined on g002 (it holds it from the join on, as a daemon's
	// registry does); joined: what its next tick has yet to tell.
	held, joined := map[string]bool{}, map[string]bool{}
	holdsJoined := func(h string) bool {
		mu.Lock()
		defer mu.Unlock()
		return held[h]
	}
	for _, c := range conns {
		c.Close()
	}
	conns = linkGuests(b, n, ids, true, func(i int) link.Handler {
		if i == 2 {
			return answer(holdsJoined)
		}
		return answer(holdsOne(map[int]string{0: "bob", 1: "carl"}[i]))
	})
	if b.Failed() {
		return
	}
	links.Add(guests)
	waitLinks(b, hub, links.Load())
	for i, c := range conns {
		if !c.Ticks() {
			b.Fatalf("%s's link did not agree to Ticks", c.Box())
		}
		held := map[int][]string{0: {"bob"}, 1: {"carl"}}[i]
		if err := c.SendEvent(wire.OpLinkDirectory, wire.LinkDirectory{Full: true, Added: held}); err != nil {
			b.Fatal(err)
		}
	}
	stop := make(chan struct{})
	ticking := make(chan struct{})
	go func() {
		defer close(ticking)
		every := time.NewTicker(1500 * time.Millisecond)
		defer every.Stop()
		for {
			select {
			case <-stop:
				return
			case <-every.C:
			}
			for i, c := range conns {
				var ev wire.LinkDirectory
				if i == 2 {
					mu.Lock()
					for h := range joined {
						ev.Added = append(ev.Added, h)
					}
					clear(joined)
					mu.Unlock()
				}
				c.SendEvent(wire.OpLinkDirectory, ev)
			}
		}
	}()
	defer func() {
		close(stop)
		<-ticking
	}()
	b.Run("ticks/unclaimed/senders=8", func(b *testing.B) { unheld(b, 8, false) })
	b.Run("ticks/unclaimed-fresh/senders=64", func(b *testing.B) { unheld(b, 64, true) })
	var joins atomic.Int64 // names each joined handle once across runs
	b.Run("ticks/joined/senders=64", func(b *testing.B) {
		client := senders(n.hub, "hank", 64)
		defer closeAll(client)
		defer measure(b)()
		report(b, "joined", testutil.Latencies(b, client, b.N, func(c *wire.Client, j int) error {
			to := fmt.Sprintf("newcomer%d", joins.Add(1))
			mu.Lock()
			joined[to], held[to] = true, true
			mu.Unlock()
			var res wire.CommFiled
			if err := c.Call(context.Background(), wire.OpCommFile, wire.CommFile{From: "hank", To: to, Text: "bench", ID: mail.NewID()}, &res); err != nil || !res.OK {
				return fmt.Errorf("comm.file to @%s = %+v, %v; want g002's ok", to, res, err)
			}
			return nil
		}))
	})
}

// linkGuests links every one of ids to n's hub, promising Ticks when ticks is
// set, each answering offers with handler(i).
func linkGuests(b *testing.B, n *network, ids []*identity.Identity, ticks bool, handler func(i int) link.Handler) []*link.Conn {
	conns := make([]*link.Conn, len(ids))
	var wg sync.WaitGroup
	// quic-go refuses handshakes past its accept queue (32), as a Keeper's
	// retry would meet; the guests here dial 16 at a time instead. A
	// handshake may take past the 3 s after which a box would try WebSocket
	// (QUICWait): 200 of them and the hub share two busy cores here, and the
	// bench wants QUIC links, not a failed setup.
	dialing := make(chan struct{}, 16)
	for i, id := range ids {
		dialing <- struct{}{}
		wg.Go(func() {
			defer func() { <-dialing }()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			c, err := link.Dial(ctx, link.Config{Box: id.Box, QUICWait: 30 * time.Second, Ticks: ticks, Handler: handler(i)}, link.Target{Identity: id, Hub: "hb", Addr: n.quic, Key: n.keys["hb"]})
			if err != nil {
				b.Errorf("link %s: %v", id.Box, err)
				return
			}
			conns[i] = c
		})
	}
	wg.Wait()
	b.Cleanup(func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	})
	return conns
}

// waitLinks waits until the hub has logged want links up, in all.
func waitLinks(b *testing.B, hub *daemon, want int64) {
	b.Helper()
	testutil.Eventually(b, 60*time.Second, fmt.Sprintf("the hub to admit %d links in all", want), func() bool {
		return int64(strings.Count(hub.logs.String(), `msg="link up"`)) >= want
	})
	if got := strings.Count(hub.logs.String(), `msg="link up"`); int64(got) != want {
		b.Fatalf("the hub admitted %d links, want %d", got, want)
	}
}

// hubProfile takes a CPU profile of the hub's daemon through its
// /debug/pprof/ endpoint while a sub-benchmark runs, when
// SOTD_BENCH_HUB_PROFILE names a folder: SOTD_BENCH_HUB_SECONDS long (default
// 5), written there under the sub-benchmark's name. Run enough iterations to
// fill it. The returned func waits for the profile.
func hubProfile(b *testing.B, hub *box) func() {
	dir := os.Getenv("SOTD_BENCH_HUB_PROFILE")
	if dir == "" {
		return func() {}
	}
	secs := os.Getenv("SOTD_BENCH_HUB_SECONDS")
	if secs == "" {
		secs = "5"
	}
	page, err := web.URL(home.Home{Dir: hub.home}, hub.host)
	if err != nil {
		b.Fatal(err)
	}
	u, err := url.Parse(page)
	if err != nil {
		b.Fatal(err)
	}
	u.Path = "/debug/pprof/profile"
	q := u.Query()
	q.Set("seconds", secs)
	u.RawQuery = q.Encode()
	done := make(chan error, 1)
	go func() {
		res, err := http.Get(u.String())
		if err != nil {
			done <- err
			return
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			done <- fmt.Errorf("%s from the hub's /debug/pprof/profile", res.Status)
			return
		}
		out, err := os.Create(filepath.Join(dir, strings.NewReplacer("/", "_", "=", "").Replace(b.Name())+".pprof"))
		if err == nil {
			_, err = io.Copy(out, res.Body)
			err = errors.Join(err, out.Close())
		}
		done <- err
	}()
	return func() {
		if err := <-done; err != nil {
			b.Errorf("the hub's CPU profile: %v", err)
		}
	}
}

// cpuSpent starts counting the CPU time the hub (pid) and this process (the
// guests' links and the senders) spend; the returned func reports each per
// op, where /proc tells it (Linux: in 10 ms ticks, so runs of a few seconds).
func cpuSpent(b *testing.B, pid int) func() {
	hub0, ok0 := cpuOf(pid)
	self0, ok1 := cpuOf(os.Getpid())
	return func() {
		hub1, ok2 := cpuOf(pid)
		self1, ok3 := cpuOf(os.Getpid())
		if ok0 && ok1 && ok2 && ok3 {
			b.ReportMetric(ms(hub1-hub0)/float64(b.N), "hub-CPU-ms/op")
			b.ReportMetric(ms(self1-self0)/float64(b.N), "guests-CPU-ms/op")
		}
	}
}

// cpuOf is a process's user and system CPU time so far, where /proc tells it.
func cpuOf(pid int) (time.Duration, bool) {
	if runtime.GOOS != "linux" {
		return 0, false
	}
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	// The command's name, in parentheses, may hold spaces: fields count
	// from after its closing one, utime and stime being the 14th and 15th.
	i := strings.LastIndexByte(string(raw), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	return time.Duration(utime+stime) * tick, true
}

// residentMB is a process's resident memory in MB, where /proc tells it.
func residentMB(pid int) (float64, bool) {
	if runtime.GOOS != "linux" {
		return 0, false
	}
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			return kb / 1024, err == nil
		}
	}
	return 0, false
}
