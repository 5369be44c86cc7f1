package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/link"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// notPinned is a well-formed fingerprint no box has.
const notPinned = "ed25519:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

// TestCrossBox runs a hub (hb) and two guests (ga, gb), each with its own home,
// plus gx, which the hub's hosts.toml does not list, and gy, which it pins under
// another key. Every answer is the one line `sotd send` prints.
func TestCrossBox(t *testing.T) {
	t.Parallel()
	n := newNetwork(t, "ga", "gb", "gx", "gy")
	hb, ga, gb, gx, gy := n.hub, n.boxes["ga"], n.boxes["gb"], n.boxes["gx"], n.boxes["gy"]
	common := n.hostsTOML(n.quic, n.ws, guests("ga", "gb")...)
	n.writeHosts("ga", common)
	n.writeHosts("gb", common)
	n.writeHosts("hb", n.hostsTOML(n.quic, n.ws, append(guests("ga", "gb"), hostLine{name: "gy", key: notPinned})...))
	// gx and gy each list themselves under their own keys: only the hub's
	// hosts.toml decides.
	n.writeHosts("gx", n.hostsTOML(n.quic, n.ws, guests("gx")...))
	n.writeHosts("gy", n.hostsTOML(n.quic, n.ws, guests("gy")...))
	n.start("ga", "gb")
	gxd, gyd := gx.serve(), gy.serve()
	hb.must("hank", "join")
	ga.must("alice", "join")
	gb.must("bob", "join")
	gb.must("stale", "join")
	gx.must("xena", "join")
	gy.must("yuri", "join")

	send := func(b *box, from, to, text string) result {
		t.Helper()
		return b.run(from, "", "send", "@"+to, text)
	}
	wantLine := func(r result, code int, line string) {
		t.Helper()
		if r.code != code || r.stdout != line+"\n" {
			t.Fatalf("send: exit %d, %q (stderr %q); want exit %d, %q", r.code, r.stdout, r.stderr, code, line)
		}
	}

	t.Run("filed once and read by poll on the receiving box", func(t *testing.T) {
		wantLine(send(ga, "alice", "bob", "hello from ga"), 0, "filed -> @bob")
		if out := gb.must("bob", "poll"); !strings.Contains(out, "@alice (") || !strings.Contains(out, "hello from ga") {
			t.Fatalf("bob's poll on gb:\n%s", out)
		}
		wantLine(send(hb, "hank", "alice", "hello from the hub"), 0, "filed -> @alice")
		wantLine(send(gb, "bob", "hank", "hello to the hub"), 0, "filed -> @hank")
		if out := ga.must("alice", "poll"); !strings.Contains(out, "hello from the hub") {
			t.Fatalf("alice's poll on ga:\n%s", out)
		}
		for _, c := range []struct {
			b      *box
			handle string
		}{{gb, "bob"}, {ga, "alice"}, {hb, "hank"}} {
			for id, k := range c.b.inboxIDs(c.handle) {
				if k != 1 {
					t.Fatalf("@%s's inbox on %s holds id %s %d times", c.handle, c.b.host, id, k)
				}
			}
			if len(c.b.inboxIDs(c.handle)) != 1 {
				t.Fatalf("@%s's inbox on %s holds %d lines, want 1", c.handle, c.b.host, len(c.b.inboxIDs(c.handle)))
			}
		}
	})

	t.Run("a reply across boxes names its line, and log says what it cannot read", func(t *testing.T) {
		// alice, on ga, answers the line hank filed from the hub by its short id.
		hist := ga.must("alice", "log", "@hank")
		m := regexp.MustCompile(`(?m)^@hank -> @alice \(\S+, id ([0-9A-Z]{8}), read\): hello from the hub$`).FindStringSubmatch(hist)
		if m == nil {
			t.Fatalf("alice's log @hank on ga:\n%s", hist)
		}
		// hank's inbox is in the hub's home, which ga's log cannot read: it says so.
		if !strings.Contains(hist, "note: @hank is not listed in this home: any line @alice sent it is filed on the box that holds it") {
			t.Errorf("alice's log @hank on ga names no other box:\n%s", hist)
		}
		wantLine(ga.run("alice", "", "send", "@hank", "--reply-to", m[1], "thanks, hub"), 0, "filed -> @hank")
		if out := hb.must("hank", "poll"); !strings.Contains(out, ", re "+m[1]+"): thanks, hub") {
			t.Fatalf("hank's poll on hb:\n%s", out)
		}
	})

	t.Run("a handle no box knows", func(t *testing.T) {
		// gy runs a daemon, so it should hold a link, and its wrong key keeps it
		// from ever holding one: the handle may be there.
		wantLine(send(ga, "alice", "nobody", "hi"), 1, "FAILED -> @nobody: no linked box knows that handle: nobody; not linked: gy")
	})

	t.Run("a stale handle", func(t *testing.T) {
		makeStale(t, gb, "stale")
		wantLine(send(ga, "alice", "stale", "hi"), 1, "FAILED -> @stale: no live session holds @stale")
	})

	t.Run("the receiver's inbox lock held for 3s", func(t *testing.T) {
		before := len(gb.inboxIDs("bob"))
		l := flock.New(filepath.Join(gb.home, "inbox", "bob.lock"))
		if err := l.Lock(); err != nil {
			t.Fatal(err)
		}
		held := time.AfterFunc(3*time.Second, func() { l.Unlock() })
		defer func() {
			if held.Stop() {
				l.Unlock()
			}
		}()
		start := time.Now()
		r := send(ga, "alice", "bob", "while the lock is held")
		took := time.Since(start)
		wantLine(r, 1, "FAILED -> @bob: the inbox lock for @bob was held for 2s — nothing was appended")
		if took > 5*time.Second {
			t.Fatalf("the answer took %s, past the 5s read window", took)
		}
		if got := len(gb.inboxIDs("bob")); got != before {
			t.Fatalf("bob's inbox went from %d to %d lines", before, got)
		}
	})

	t.Run("a retried id files once, across boxes", func(t *testing.T) {
		c := ga.dial("alice")
		req := wire.CommFile{From: "alice", To: "bob", Text: "sent twice", ID: mail.NewID()}
		for i, wantDup := range []bool{false, true} {
			var res wire.CommFiled
			if err := c.Call(context.Background(), wire.OpCommFile, req, &res); err != nil || !res.OK || res.Dup != wantDup {
				t.Fatalf("comm.file #%d = %+v, %v; want ok, dup %v", i+1, res, err, wantDup)
			}
		}
		if k := gb.inboxIDs("bob")[req.ID]; k != 1 {
			t.Fatalf("bob's inbox holds the retried id %d times, want once", k)
		}
	})

	t.Run("an unlisted box and a box with a wrong key are refused and file nothing", func(t *testing.T) {
		for _, c := range []struct {
			b    *box
			d    *daemon
			from string
		}{{gx, gxd, "xena"}, {gy, gyd, "yuri"}} {
			waitLog(t, n.daemons["hb"], "no box in hosts.toml is pinned to key "+n.keys[c.b.host], 10*time.Second)
			waitLog(t, c.d, "refused this box's key", 10*time.Second)
			before := len(gb.inboxIDs("bob"))
			r := send(c.b, c.from, "bob", "let me in")
			if r.code != 1 || !strings.HasPrefix(r.stdout, fmt.Sprintf("FAILED -> @bob: this box, %s, holds no link to its hub hb, so @bob was not forwarded — nothing was appended", c.b.host)) {
				t.Fatalf("send from %s: exit %d, %q", c.b.host, r.code, r.stdout)
			}
			if got := len(gb.inboxIDs("bob")); got != before {
				t.Fatalf("a line from %s reached bob", c.b.host)
			}
			// Nor is anything offered to a refused box.
			wantLine(send(ga, "alice", c.from, "hi"), 1, "FAILED -> @"+c.from+": no linked box knows that handle: "+c.from+"; not linked: gy")
		}
		if strings.Contains(n.daemons["hb"].logs.String(), "box=gx ") || strings.Contains(n.daemons["hb"].logs.String(), `msg="link up" box=gy`) {
			t.Fatalf("the hub admitted a refused box:\n%s", n.daemons["hb"].logs.String())
		}
	})

	t.Run("a box that should link holds none", func(t *testing.T) {
		n.daemons["gb"].stop(t)
		n.waitLink("gb", false, 10*time.Second)
		wantLine(send(ga, "alice", "nobody", "hi"), 1, "FAILED -> @nobody: no linked box knows that handle: nobody; not linked: gb, gy")
	})
}

// makeStale sets handle's last_seen on b an hour back: no live session holds it.
func makeStale(t *testing.T, b *box, handle string) {
	t.Helper()
	h := home.Home{Dir: b.home}
	err := registry.Update(h, 5*time.Second, func(d *registry.Doc) error {
		d.Agents[handle].LastSeen = registry.Stamp(time.Now().Add(-time.Hour))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// sent is one request a sender made and what came back.
type sent struct {
	id     string
	at     time.Time
	took   time.Duration
	filed  bool
	failed string
}

// streams is what each of several senders has had back so far.
type streams struct {
	mu  sync.Mutex
	got [][]sent
}

func (st *streams) add(i int, s sent) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.got[i] = append(st.got[i], s)
}

// each says whether every sender has had an answer that holds ok.
func (st *streams) each(ok func(sent) bool) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, rs := range st.got {
		if !slices.ContainsFunc(rs, ok) {
			return false
		}
	}
	return true
}

// hung bounds one answer to a send while the hub dies or restarts. An answer
// that waited for the dead-link judge (link.DeadAfter, 15 s) takes longer; one
// that failed as the link broke, or at the forward's own wait (3.5 s), takes
// less, with seconds to spare for a loaded machine.
const hung = link.DeadAfter / 2

// sender sends to @to through b's daemon, one request at a time with a fresh
// id, until stop is closed; each answer goes to keep as it comes.
func sender(b *box, from, to string, stop <-chan struct{}, keep func(sent)) {
	c := b.dial(from)
	for {
		select {
		case <-stop:
			return
		default:
		}
		s := sent{id: mail.NewID(), at: time.Now()}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var res wire.CommFiled
		err := c.Call(ctx, wire.OpCommFile, wire.CommFile{From: from, To: to, Text: "stream " + s.id, ID: s.id}, &res)
		cancel()
		s.took = time.Since(s.at)
		if err != nil {
			s.failed = err.Error()
			time.Sleep(20 * time.Millisecond) // a failure comes fast while unlinked
		} else {
			s.filed = res.OK
		}
		keep(s)
	}
}

// TestHubKilledMidStream kills the hub with SIGKILL while senders on ga stream
// to bob on gb: every sender gets FAILED, no answer waits for the dead-link
// judge, no line sent after the hub died is answered filed, every line
// answered filed is in bob's inbox once, and after the hub restarts both
// guests link again by themselves.
func TestHubKilledMidStream(t *testing.T) {
	t.Parallel()
	n := newNetwork(t, "ga", "gb")
	n.linkAll("ga", "gb")
	n.start("ga", "gb")
	ga, gb := n.boxes["ga"], n.boxes["gb"]
	ga.must("alice", "join")
	gb.must("bob", "join")

	const senders = 8
	st := &streams{got: make([][]sent, senders)}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range senders {
		wg.Go(func() { sender(ga, "alice", "bob", stop, func(s sent) { st.add(i, s) }) })
	}
	testutil.Eventually(t, 30*time.Second, "a line filed for every sender", func() bool {
		return st.each(func(s sent) bool { return s.filed })
	})
	killed := time.Now()
	n.killHub()
	dead := time.Now() // killHub has waited for the hub to exit
	testutil.Eventually(t, link.DeadAfter, "a FAILED answer for every sender after the kill", func() bool {
		return st.each(func(s sent) bool { return s.failed != "" && s.at.Add(s.took).After(killed) })
	})
	close(stop)
	wg.Wait()
	results := st.got

	for i, rs := range results {
		for _, s := range rs {
			if s.took > hung {
				t.Errorf("sender %d: an answer took %s (sent %s after the kill)", i, s.took, s.at.Sub(killed))
			}
			if s.filed && s.at.After(dead) {
				t.Errorf("sender %d: a line sent %s after the hub died was answered filed", i, s.at.Sub(dead))
			}
		}
	}
	ids := gb.inboxIDs("bob")
	for _, rs := range results {
		for _, s := range rs {
			if s.filed && ids[s.id] != 1 {
				t.Errorf("line %s was answered filed and is in bob's inbox %d times", s.id, ids[s.id])
			}
		}
	}
	t.Logf("the FAILED sentences after the kill: %q", failedKinds(results))

	n.startHub()
	n.waitLinked("ga")
	n.waitLinked("gb")
	if r := ga.run("alice", "", "send", "@bob", "after the restart"); r.code != 0 || r.stdout != "filed -> @bob\n" {
		t.Fatalf("send after the hub restarted: exit %d, %q", r.code, r.stdout)
	}
}

// failedKinds is each distinct FAILED sentence, its ids cut off.
func failedKinds(results [][]sent) []string {
	seen := map[string]bool{}
	var kinds []string
	for _, rs := range results {
		for _, s := range rs {
			if s.failed == "" {
				continue
			}
			k := s.failed
			if i := strings.Index(k, " ("); i > 0 {
				k = k[:i]
			}
			if !seen[k] {
				seen[k] = true
				kinds = append(kinds, k)
			}
		}
	}
	return kinds
}

// TestLinkCutByAProxyReconnects links ga over WebSocket only (its hosts.toml
// gives the hub a QUIC address where UDP goes unanswered) through a TCP proxy
// the test cuts and restores: the link comes back by itself, and a line sent
// again under its id the whole time is filed once.
func TestLinkCutByAProxyReconnects(t *testing.T) {
	t.Parallel()
	n := newNetwork(t, "ga", "gb")
	proxy := startProxy(t, n.ws)
	n.writeHosts("hb", n.hostsTOML(n.quic, n.ws, guests("ga", "gb")...))
	n.writeHosts("gb", n.hostsTOML(n.quic, n.ws, guests("ga", "gb")...))
	n.writeHosts("ga", n.hostsTOML(testutil.SilentUDP(t), proxy.addr, guests("ga", "gb")...))
	n.start("ga", "gb")
	ga, gb := n.boxes["ga"], n.boxes["gb"]
	ga.must("alice", "join")
	gb.must("bob", "join")
	hub := n.daemons["hb"]
	if l := n.waitLink("ga", true, 30*time.Second); l.Transport != "ws" {
		t.Fatalf("ga linked over %q, want ws:\n%s", l.Transport, hub.logs.String())
	}
	if r := ga.run("alice", "", "send", "@bob", "before the cut"); r.code != 0 {
		t.Fatalf("send before the cut: exit %d, %q", r.code, r.stdout)
	}

	proxy.cut()
	n.waitLink("ga", false, 10*time.Second)
	if r := ga.run("alice", "", "send", "@bob", "while cut"); r.code != 1 || !strings.HasPrefix(r.stdout, "FAILED -> @bob: ") {
		t.Fatalf("send while cut: exit %d, %q", r.code, r.stdout)
	}
	proxy.resume()

	c := ga.dial("alice")
	req := wire.CommFile{From: "alice", To: "bob", Text: "through the cut", ID: mail.NewID()}
	tries := 0
	var err error
	filed := testutil.Within(30*time.Second, func() bool {
		tries++
		var res wire.CommFiled
		err = c.Call(context.Background(), wire.OpCommFile, req, &res)
		return err == nil && res.OK
	})
	if !filed {
		t.Fatalf("no link 30s after the proxy came back: %v\n%s", err, n.daemons["ga"].logs.String())
	}
	if got := strings.Count(hub.logs.String(), `msg="link up" box=ga `); got < 2 {
		t.Fatalf("the hub saw ga link %d times, want again after the cut", got)
	}
	if k := gb.inboxIDs("bob")[req.ID]; k != 1 {
		t.Fatalf("the line sent %d times under one id is in bob's inbox %d times, want once", tries, k)
	}
}
