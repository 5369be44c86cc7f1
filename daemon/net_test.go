package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// netBox is one box of an in-process network: its own home, registry and
// daemon, linked over real QUIC on loopback.
type netBox struct {
	*rig
	d    *Daemon
	name string
}

// boxHome makes box's home, listing agents (handle -> last seen) under box, and
// its key.
func boxHome(t testing.TB, box string, agents map[string]time.Time) (home.Home, string) {
	t.Helper()
	dir := testutil.ShortDir(t, "sn")
	h, err := home.At(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]any{}
	for name, seen := range agents {
		rows[name] = map[string]any{"host": box, "repo": name, "root": "/src/" + name, "joined": registry.Stamp(seen), "last_seen": registry.Stamp(seen)}
	}
	b, _ := json.Marshal(map[string]any{"protocol_version": 1, "agents": rows})
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	if err := home.WriteAtomic(h.Registry(), b); err != nil {
		t.Fatal(err)
	}
	id, err := identity.Load(h, box)
	if err != nil {
		t.Fatal(err)
	}
	return h, id.Fingerprint()
}

func startBox(t testing.TB, h home.Home, box, hosts string, tune ...func(*Config)) *netBox {
	t.Helper()
	logs := &testutil.SyncBuffer{}
	cfg := Config{Home: h, Host: box, HostsPath: hosts, Log: logs.Logger(), Now: func() time.Time { return testNow }}
	for _, f := range tune {
		f(&cfg)
	}
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &rig{home: h, sock: d.cfg.Socket, logs: logs, cancel: cancel, done: make(chan error, 1)}
	// Labelled by box, as every goroutine it starts is, so a profile of a
	// benchmark tells the boxes apart (go tool pprof -tags).
	go pprof.Do(ctx, pprof.Labels("box", box), func(ctx context.Context) { r.done <- d.Run(ctx) })
	waitFor(t, box+"'s daemon to listen", func() bool {
		c, err := net.Dial("unix", r.sock)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	t.Cleanup(func() {
		r.stop(t)
		if t.Failed() {
			t.Logf("%s's log:\n%s", box, logs.String())
		}
	})
	<-d.netSet // orders the test's reads of d.net after Run's write
	if d.net.Router() != nil {
		// A guest started before the hub's listener is up misses it, and
		// links only after the QUIC handshake's wait and a relink's.
		waitFor(t, box+"'s links to listen", func() bool { return logs.Contains("links listening") })
	}
	return &netBox{rig: r, d: d, name: box}
}

// guestsLinked says whether each guest's own end of its link is up: the hub
// lists a link a moment before the guest's keeper has it as current, and a
// send from the guest in that moment is refused as not linked.
func guestsLinked(guests ...*netBox) bool {
	for _, g := range guests {
		if g.d.net.HubLinks()[0].Keeper().Current() == nil {
			return false
		}
	}
	return true
}

// threeBoxes starts hub hb (hank, and stale-hb an hour old), guests ga (alice)
// and gb (bob, and stale an hour old), all linked. hosts.toml also names gx, a
// frontend box that never links.
func threeBoxes(t testing.TB) (hb, ga, gb *netBox) {
	live, old := testNow.Add(-time.Minute), testNow.Add(-time.Hour)
	hh, hk := boxHome(t, "hb", map[string]time.Time{"hank": live, "stale-hb": old})
	ah, ak := boxHome(t, "ga", map[string]time.Time{"alice": live})
	bh, bk := boxHome(t, "gb", map[string]time.Time{"bob": live, "stale": old})
	hosts := filepath.Join(t.TempDir(), "hosts.toml")
	toml := fmt.Sprintf("hub = \"hb\"\n[host.hb]\ndaemon = true\naddr = %q\nkey = %q\n"+
		"[host.ga]\ndaemon = true\nfrontend = true\nkey = %q\n[host.gb]\ndaemon = true\nfrontend = true\nkey = %q\n"+
		"[host.gx]\nfrontend = true\nkey = \"ed25519:neverlinks\"\n", testutil.FreeUDP(t), hk, ak, bk)
	if err := os.WriteFile(hosts, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	hb = startBox(t, hh, "hb", hosts)
	ga = startBox(t, ah, "ga", hosts)
	gb = startBox(t, bh, "gb", hosts)
	waitFor(t, "both guests to link and tell the hub their handles", func() bool {
		r := hb.d.net.Router()
		return slices.Equal(r.Linked(), []string{"ga", "gb"}) && r.Holder("alice") == "ga" && r.Holder("bob") == "gb" && guestsLinked(ga, gb)
	})
	return hb, ga, gb
}

func TestRoutesAcrossBoxes(t *testing.T) {
	t.Parallel()
	hb, ga, gb := threeBoxes(t)
	// Each box sends as a handle it holds: a box acts for no other.
	senderOf := map[*netBox]string{hb: "hank", ga: "alice", gb: "bob"}
	for _, tc := range []struct {
		name     string
		from     *netBox
		to, want string // want: "" for ok
		inboxOf  *netBox
	}{
		{"guest to guest, through the hub", ga, "bob", "", gb},
		{"guest to the hub's own folder", ga, "hank", "", hb},
		{"hub to a guest", hb, "alice", "", ga},
		{"a guest's own handle stays on the guest", ga, "alice", "", ga},
		{"a handle no box knows", ga, "nobody", "no linked box knows that handle: nobody; not linked: gx", nil},
		{"a stale handle on another guest", ga, "stale", "no live session holds @stale", nil},
		{"a stale handle on the hub", gb, "stale-hb", "no live session holds @stale-hb", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.from.dial(t)
			// Each line answers another: in_reply_to travels every route with it.
			req := wire.CommFile{From: senderOf[tc.from], To: tc.to, Text: "across " + tc.name, ID: "ID-" + strings.ReplaceAll(tc.name, " ", "-"), InReplyTo: "RE-" + strings.ReplaceAll(tc.name, " ", "-")}
			res, err := call(t, c, req)
			if tc.want != "" {
				if err == nil || err.Error() != tc.want {
					t.Fatalf("comm.file to @%s = %+v, %v; want %q", tc.to, res, err, tc.want)
				}
				return
			}
			if err != nil || !res.OK || res.Dup {
				t.Fatalf("comm.file to @%s = %+v, %v; want ok", tc.to, res, err)
			}
			// A retry with the same id is answered ok, dup, and files nothing more.
			if res, err := call(t, c, req); err != nil || !res.OK || !res.Dup {
				t.Fatalf("the retry = %+v, %v; want ok, dup", res, err)
			}
			var n int
			for _, l := range tc.inboxOf.inbox(t, tc.to) {
				if l["id"] == req.ID && l["in_reply_to"] == req.InReplyTo {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("@%s's inbox on %s holds the line, in reply to %s, %d times, want once:\n%v", tc.to, tc.inboxOf.name, req.InReplyTo, n, tc.inboxOf.inbox(t, tc.to))
			}
		})
	}
	// The hub's own folder is never the guests' to record.
	for _, b := range []*netBox{hb, ga, gb} {
		if _, err := os.Stat(b.home.LockManager()); err != nil {
			t.Errorf("%s (the hub of its own folder) has no lock-manager record: %v", b.name, err)
		}
	}
}

func TestHeldLockIsTheReceiversWords(t *testing.T) {
	t.Setenv("SOT_INBOX_LOCK_WAIT_SECS", "0.3")
	_, ga, gb := threeBoxes(t)
	release := holdInboxLock(t, gb.home, "bob")
	defer release()
	start := time.Now()
	_, err := call(t, ga.dial(t), wire.CommFile{From: "alice", To: "bob", Text: "held"})
	if err == nil || err.Error() != "the inbox lock for @bob was held for 0.3s — nothing was appended" {
		t.Fatalf("comm.file = %v; want the receiver's lock sentence", err)
	}
	// The receiver's sentence is the proof that the hub did not give up on
	// the offer first (it waits the lock wait plus 1 s); how long the answer
	// took, dial and round trip included, is the load's as much as the hub's.
	t.Logf("the receiver's refusal came back in %s (the lock wait is 0.3 s)", time.Since(start).Round(time.Millisecond))
}

func TestGuestWithoutItsHubSaysSo(t *testing.T) {
	t.Parallel()
	hb, ga, _ := threeBoxes(t)
	if err := hb.stop(t); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "ga to see its link end", func() bool { return ga.d.net.HubLinks()[0].Keeper().Current() == nil })
	_, err := call(t, ga.dial(t), wire.CommFile{From: "alice", To: "bob", Text: "no hub"})
	want := "this box, ga, holds no link to its hub hb, so @bob was not forwarded — nothing was appended"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("comm.file = %v; want %q…", err, want)
	}
	// What ga holds itself it still files.
	if res, err := call(t, ga.dial(t), wire.CommFile{From: "x", To: "alice", Text: "still here"}); err != nil || !res.OK {
		t.Fatalf("comm.file to ga's own @alice = %+v, %v", res, err)
	}
}

func TestDirectoryFollowsTheRegistry(t *testing.T) {
	t.Parallel()
	hb, _, gb := threeBoxes(t)
	boxHas := func(handle string) bool {
		return hb.d.net.Router().Holder(handle) == "gb"
	}
	if !boxHas("bob") || !boxHas("stale") {
		t.Fatal("the hub's directory lacks gb's handles after link-up")
	}
	doc, err := registry.Read(gb.home)
	if err != nil {
		t.Fatal(err)
	}
	doc.Agents["newbie"] = &registry.Entry{Host: "gb", LastSeen: registry.Stamp(testNow)}
	delete(doc.Agents, "stale")
	b, err := doc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := home.WriteAtomic(gb.home.Registry(), b); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the hub to hear of newbie and forget stale", func() bool { return boxHas("newbie") && !boxHas("stale") })
}
