package integration

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/link"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/topology"
	"github.com/sotcomm/sotd/wire"
)

// hubNet is several hubs and their guests on 127.0.0.1, every daemon a real
// `sotd serve` with its own home and hosts.toml.
type hubNet struct {
	t       testing.TB
	boxes   map[string]*box
	daemons map[string]*daemon
	keys    map[string]string
	addrs   map[string]string // hub -> its QUIC address
	hubs    []string
	guests  []string
}

func newHubNet(t testing.TB, hubs, guests []string) *hubNet {
	t.Helper()
	onOwnDisk(t)
	n := &hubNet{t: t, boxes: map[string]*box{}, daemons: map[string]*daemon{}, keys: map[string]string{}, addrs: map[string]string{}, hubs: hubs, guests: guests}
	for _, name := range slices.Concat(hubs, guests) {
		b := newBox(t, name)
		// A beat of 2 s: a restarted hub's old links are reset, and relinked,
		// within a beat and a relink step.
		b.extra = append(b.extra, link.EnvHeartbeat+"=2")
		n.boxes[name] = b
		n.keys[name] = b.id()
	}
	for _, h := range hubs {
		n.addrs[h] = testutil.FreeUDP(t)
	}
	return n
}

// hostsTOML names hubs as the hubs (hub = "x" for one) and every box of the
// network, each a daemon.
func (n *hubNet) hostsTOML(hubs ...string) string {
	var s strings.Builder
	if len(hubs) == 1 {
		fmt.Fprintf(&s, "hub = %q\n", hubs[0])
	} else {
		fmt.Fprintf(&s, "hubs = [\"%s\"]\n", strings.Join(hubs, `", "`))
	}
	for _, name := range slices.Concat(n.hubs, n.guests) {
		fmt.Fprintf(&s, "\n[host.%s]\ndaemon = true\nkey = %q\n", name, n.keys[name])
		if a, ok := n.addrs[name]; ok {
			fmt.Fprintf(&s, "addr = %q\n", a)
		}
	}
	return s.String()
}

func (n *hubNet) writeHosts(name, text string) {
	n.t.Helper()
	if err := os.WriteFile(n.boxes[name].hosts, []byte(text), 0o600); err != nil {
		n.t.Fatal(err)
	}
}

// serve starts name's daemon; a hub's, by its hosts.toml, once its link
// listener is bound.
func (n *hubNet) serve(name string) {
	n.t.Helper()
	d := n.boxes[name].serve()
	if t, _, err := topology.Load(n.boxes[name].hosts); err == nil && t.IsHub(name) {
		waitLog(n.t, d, `msg="links listening"`, 10*time.Second)
	}
	n.daemons[name] = d
}

// linkedTo says whether box name holds its link to hub up, by its own
// link.status.
func (n *hubNet) linkedTo(name, hub string) bool {
	st, err := n.boxes[name].linkStatus()
	if err != nil {
		return false
	}
	i := slices.IndexFunc(st.HubLinks, func(l wire.LinkState) bool { return l.Box == hub })
	if i < 0 && len(st.HubLinks) == 0 { // one hub: its links are the hub links
		i = slices.IndexFunc(st.Links, func(l wire.LinkState) bool { return l.Box == hub })
		return i >= 0 && st.Links[i].Up
	}
	return i >= 0 && st.HubLinks[i].Up
}

// waitHub waits until every other box holds its link to hub up, and hub
// lists every box linked to it.
func (n *hubNet) waitHub(hub string, within time.Duration) {
	n.t.Helper()
	ok := testutil.Within(within, func() bool {
		st, err := n.boxes[hub].linkStatus()
		if err != nil {
			return false
		}
		for _, l := range st.Links {
			if !l.Up {
				return false
			}
		}
		for name := range n.boxes {
			if name != hub && n.daemons[name] != nil && !n.linkedTo(name, hub) {
				return false
			}
		}
		return true
	})
	if !ok {
		n.t.Fatalf("the boxes did not all link to the hub %s within %s; its log:\n%s", hub, within, n.daemons[hub].logs.String())
	}
}

// attempt is one send of the campaign, recorded before it is sent.
type attempt struct {
	id, from, to string
	at           time.Time
	took         time.Duration
	filed        bool
	failed       string // the refusal's sentence; "" when filed
}

// campaign is every send so far, by id.
type campaign struct {
	mu    sync.Mutex
	sends map[string]*attempt
	done  atomic.Int64
}

func (c *campaign) begin(from, to string) *attempt {
	a := &attempt{id: mail.NewID(), from: from, to: to, at: time.Now()}
	c.mu.Lock()
	c.sends[a.id] = a
	c.mu.Unlock()
	return a
}

func (c *campaign) end(a *attempt, res wire.CommFiled, err error) {
	c.mu.Lock()
	a.took = time.Since(a.at)
	if err != nil {
		a.failed = err.Error()
	} else {
		a.filed = res.OK
	}
	c.mu.Unlock()
	c.done.Add(1)
}

// recovery is how long after at the first line sent after it was answered
// filed: when sends succeeded again.
func (c *campaign) recovery(at time.Time) (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	best, ok := time.Duration(0), false
	for _, a := range c.sends {
		if a.filed && !a.at.Before(at) {
			if d := a.at.Add(a.took).Sub(at); !ok || d < best {
				best, ok = d, true
			}
		}
	}
	return best, ok
}

// run sends from box as from, to each of to in turn, one line at a time,
// every pace, until stop closes.
func (c *campaign) run(b *box, from string, to []string, pace time.Duration, stop <-chan struct{}) {
	cl := b.dial(from)
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		case <-time.After(pace):
		}
		a := c.begin(from, to[i%len(to)])
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var res wire.CommFiled
		err := cl.Call(ctx, wire.OpCommFile, wire.CommFile{From: from, To: a.to, Text: "campaign " + a.id, ID: a.id}, &res)
		cancel()
		c.end(a, res, err)
	}
}

// TestSeveralHubsFaultCampaign: two hubs, three guests linked to both, senders
// on every guest sending to the others' sessions. Hub ha is killed with
// SIGKILL mid-run, then restarted, then hub hb is killed: no line is lost or
// filed twice, every answer is true (a FAILED line is never filed; one that
// "may still be filed" is looked up), and sends succeed again within 5 s of
// each kill.
func TestSeveralHubsFaultCampaign(t *testing.T) {
	parallelUnlessSoak(t)
	lines, pace := 300, 60*time.Millisecond
	if testutil.Soak {
		lines, pace = 2000, 25*time.Millisecond
	}
	n := newHubNet(t, []string{"ha", "hb"}, []string{"g1", "g2", "g3"})
	text := n.hostsTOML("ha", "hb")
	for name := range n.boxes {
		n.writeHosts(name, text)
	}
	for _, name := range []string{"ha", "hb", "g1", "g2", "g3"} {
		n.serve(name)
	}
	handle := map[string]string{"g1": "ann", "g2": "bo", "g3": "cy"}
	for g, h := range handle {
		n.boxes[g].must(h, "join")
	}
	n.waitHub("ha", 30*time.Second)
	n.waitHub("hb", 30*time.Second)

	c := &campaign{sends: map[string]*attempt{}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	const perGuest = 2
	for _, g := range n.guests {
		var to []string
		for _, o := range n.guests {
			if o != g {
				to = append(to, handle[o])
			}
		}
		for range perGuest {
			wg.Go(func() { c.run(n.boxes[g], handle[g], to, pace, stop) })
		}
	}
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
			wg.Wait()
		}
	}()
	until := func(count int64) {
		t.Helper()
		if !testutil.Within(2*time.Minute, func() bool { return c.done.Load() >= count }) {
			t.Fatalf("the senders did not reach %d lines in 2 minutes (%d)", count, c.done.Load())
		}
	}
	settle := func(at time.Time) time.Duration {
		t.Helper()
		var took time.Duration
		if !testutil.Within(10*time.Second, func() bool {
			var ok bool
			took, ok = c.recovery(at)
			return ok
		}) {
			t.Fatalf("no line sent after %s was filed within 10 s", at.Format(time.StampMilli))
		}
		return took
	}

	until(int64(lines) / 4)
	killA := time.Now()
	n.daemons["ha"].kill()
	recA := settle(killA)
	until(int64(lines) * 2 / 5)
	n.serve("ha")
	n.waitHub("ha", 30*time.Second)
	until(int64(lines) * 3 / 5)
	killB := time.Now()
	n.daemons["hb"].kill()
	recB := settle(killB)
	until(int64(lines))
	close(stop)
	wg.Wait()

	// Every inbox, read once the senders stopped.
	held := map[string]map[string]int{}
	for g, h := range handle {
		held[h] = n.boxes[g].inboxIDs(h)
	}
	var filed, failed, maybe, maybeFiled, lost, dup, wrong int
	var slowest time.Duration
	for _, a := range c.sends {
		count := held[a.to][a.id]
		slowest = max(slowest, a.took)
		switch {
		case a.filed:
			filed++
			if count == 0 {
				lost++
				t.Errorf("line %s from %s to @%s was answered filed and is not in its inbox", a.id, a.from, a.to)
			}
		case strings.Contains(a.failed, "may still be filed"):
			maybe++
			if count > 0 {
				maybeFiled++
			}
		default:
			failed++
			if count > 0 {
				t.Errorf("line %s to @%s was answered FAILED (%s) and is in its inbox", a.id, a.to, a.failed)
			}
		}
		if count > 1 {
			dup++
			t.Errorf("line %s is in @%s's inbox %d times", a.id, a.to, count)
		}
		if a.took > 5500*time.Millisecond {
			t.Errorf("line %s to @%s was answered after %s, past the 5 s bound: %q", a.id, a.to, a.took, a.failed)
		}
	}
	for h, ids := range held {
		for id := range ids {
			if a, ok := c.sends[id]; !ok || a.to != h {
				wrong++
				t.Errorf("@%s's inbox holds line %s, which no sender sent there (sent: %v)", h, id, ok)
			}
		}
	}
	for _, k := range []struct {
		name string
		took time.Duration
	}{{"ha", recA}, {"hb", recB}} {
		if k.took > 5*time.Second {
			t.Errorf("after %s was killed, sends succeeded again only %s later", k.name, k.took)
		}
	}
	t.Logf("campaign: %d lines (%d filed, %d FAILED, %d may-still-be-filed of which %d are in the inbox), %d lost, %d duplicated, %d misfiled; slowest answer %s; sends succeeded again %s after ha was killed, %s after hb was killed",
		len(c.sends), filed, failed, maybe, maybeFiled, lost, dup, wrong, slowest.Round(time.Millisecond), recA.Round(time.Millisecond), recB.Round(time.Millisecond))
	if failed+maybe > 0 {
		var kinds []string
		for _, a := range c.sends {
			if a.failed != "" && !slices.Contains(kinds, a.failed) && len(kinds) < 5 {
				kinds = append(kinds, a.failed)
			}
		}
		t.Logf("refusals: %q", kinds)
	}
}

// restart stops name's daemon with SIGTERM and starts it again, on the
// hosts.toml it has now.
func (n *hubNet) restart(name string) {
	n.t.Helper()
	n.daemons[name].stop(n.t)
	n.serve(name)
}

// TestHubSetChangesOneDaemonAtATime: the hub set changes from one hub to two
// and then to the other one alone, by editing hosts.toml and restarting one
// daemon at a time while senders stream: no line answered filed is lost, none
// is filed twice, no FAILED line is filed, and each phase ends with lines
// filed both ways.
func TestHubSetChangesOneDaemonAtATime(t *testing.T) {
	t.Parallel()
	n := newHubNet(t, []string{"ha", "hb"}, []string{"g1", "g2"})
	write := func(hubs ...string) {
		text := n.hostsTOML(hubs...)
		for name := range n.boxes {
			n.writeHosts(name, text)
		}
	}
	write("ha")
	for _, name := range []string{"ha", "hb", "g1", "g2"} {
		n.serve(name)
	}
	n.boxes["g1"].must("ann", "join")
	n.boxes["g2"].must("bo", "join")
	n.waitHub("ha", 30*time.Second)

	c := &campaign{sends: map[string]*attempt{}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, s := range []struct{ box, from, to string }{{"g1", "ann", "bo"}, {"g2", "bo", "ann"}} {
		wg.Go(func() { c.resilient(n.boxes[s.box], s.from, s.to, stop) })
	}
	flowing := func(what string) {
		t.Helper()
		at := time.Now()
		if !testutil.Within(20*time.Second, func() bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			both := map[string]bool{}
			for _, a := range c.sends {
				if a.filed && a.at.After(at) {
					both[a.from] = true
				}
			}
			return len(both) == 2
		}) {
			t.Fatalf("after %s, lines were not filed both ways within 20 s", what)
		}
	}
	flowing("the start")
	// One hub to two: the new hub first, then each box.
	write("ha", "hb")
	for _, name := range []string{"hb", "g1", "g2", "ha"} {
		n.restart(name)
		flowing("restarting " + name + " on hubs ha and hb")
	}
	n.waitHub("hb", 30*time.Second)
	n.waitHub("ha", 30*time.Second)
	// Two hubs to the other alone.
	write("hb")
	for _, name := range []string{"g1", "g2", "ha"} {
		n.restart(name)
		flowing("restarting " + name + " on hub hb alone")
	}
	close(stop)
	wg.Wait()

	held := map[string]map[string]int{"ann": n.boxes["g1"].inboxIDs("ann"), "bo": n.boxes["g2"].inboxIDs("bo")}
	var filed, failed int
	for _, a := range c.sends {
		count := held[a.to][a.id]
		switch {
		case a.filed:
			filed++
			if count != 1 {
				t.Errorf("line %s to @%s was answered filed and is in its inbox %d times", a.id, a.to, count)
			}
		case strings.Contains(a.failed, "may still be filed"):
			if count > 1 {
				t.Errorf("line %s to @%s is in its inbox %d times", a.id, a.to, count)
			}
		default:
			failed++
			if count > 0 {
				t.Errorf("line %s to @%s was answered FAILED (%s) and is in its inbox", a.id, a.to, a.failed)
			}
		}
	}
	t.Logf("hub set changes: %d lines, %d filed, %d FAILED while a box restarted, 0 lost, 0 duplicated", len(c.sends), filed, failed)
}

// resilient sends from box as from to @to until stop closes, dialling its
// daemon again after it restarted; an attempt whose connection broke before
// an answer is recorded as unanswered ("may still be filed").
func (c *campaign) resilient(b *box, from, to string, stop <-chan struct{}) {
	var cl *wire.Client
	defer func() {
		if cl != nil {
			cl.Close()
		}
	}()
	for {
		select {
		case <-stop:
			return
		case <-time.After(30 * time.Millisecond):
		}
		if cl == nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			var err error
			cl, err = wire.Dial(ctx, b.socket(), wire.Hello{Role: wire.RoleCLI, Host: b.host, Name: from, Protocol: wire.Protocol})
			cancel()
			if err != nil {
				cl = nil
				continue
			}
		}
		a := c.begin(from, to)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var res wire.CommFiled
		err := cl.Call(ctx, wire.OpCommFile, wire.CommFile{From: from, To: to, Text: "set " + a.id, ID: a.id}, &res)
		cancel()
		if _, refused := wire.RefusalOf(err); err != nil && !refused {
			err = fmt.Errorf("the connection to the daemon broke before it answered (%v); the line may still be filed", err)
			cl.Close()
			cl = nil
		}
		c.end(a, res, err)
	}
}

// TestSharedFolderKeepsOneHub: a second hub of hosts.toml on a comm folder
// another hub serves already refuses to start, naming that hub and the fix.
func TestSharedFolderKeepsOneHub(t *testing.T) {
	t.Parallel()
	n := newHubNet(t, []string{"ha", "hb"}, nil)
	n.boxes["hb"].home = n.boxes["ha"].home // one folder, as over NFS
	text := n.hostsTOML("ha", "hb")
	n.writeHosts("ha", text)
	n.writeHosts("hb", text)
	n.serve("ha")
	r := n.boxes["hb"].run("", "", "serve")
	if r.code == 0 || !strings.Contains(r.stderr, "is already served by the hub ha (pid ") || !strings.Contains(r.stderr, "a folder keeps one hub") {
		t.Fatalf("a second hub on ha's folder: exit %d, stderr %q; want a refusal naming ha", r.code, r.stderr)
	}
}
