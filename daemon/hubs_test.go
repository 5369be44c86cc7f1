package daemon

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/wire"
)

// twoHubNet is hubs ha (hank) and hb (hilda), guests ga (alice) and gb (bob)
// linked to both, and gc (carol), whose own hosts.toml names hb alone, so ha
// reaches carol only through hb.
type twoHubNet struct {
	ha, hb, ga, gb, gc *netBox
}

func twoHubs(t testing.TB) twoHubNet {
	live := testNow.Add(-time.Minute)
	homes := map[string]home.Home{}
	keys := map[string]string{}
	for box, handle := range map[string]string{"ha": "hank", "hb": "hilda", "ga": "alice", "gb": "bob", "gc": "carol"} {
		homes[box], keys[box] = boxHome(t, box, map[string]time.Time{handle: live})
	}
	table := fmt.Sprintf("[host.ha]\ndaemon = true\naddr = %q\nkey = %q\n[host.hb]\ndaemon = true\naddr = %q\nkey = %q\n"+
		"[host.ga]\ndaemon = true\nkey = %q\n[host.gb]\ndaemon = true\nkey = %q\n[host.gc]\ndaemon = true\nkey = %q\n",
		testutil.FreeUDP(t), keys["ha"], testutil.FreeUDP(t), keys["hb"], keys["ga"], keys["gb"], keys["gc"])
	dir := t.TempDir()
	write := func(name, head string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(head+"\n"+table), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	both, onlyB := write("hosts.toml", `hubs = ["ha", "hb"]`), write("hb-only.toml", `hub = "hb"`)
	// The clock moves from testNow: a hub tells a link what changed in the
	// view at most once a viewGap by it, and ha learns carol that way.
	start := time.Now()
	moving := func(c *Config) { c.Now = func() time.Time { return testNow.Add(time.Since(start)) } }
	n := twoHubNet{
		ha: startBox(t, homes["ha"], "ha", both, moving),
		hb: startBox(t, homes["hb"], "hb", both, moving),
		ga: startBox(t, homes["ga"], "ga", both, moving),
		gb: startBox(t, homes["gb"], "gb", both, moving),
		gc: startBox(t, homes["gc"], "gc", onlyB, moving),
	}
	// A box that dialled a hub before it listened waits out a relink step or two.
	var state string
	if !testutil.Within(20*time.Second, func() bool {
		ra, rb := n.ha.d.net.Router(), n.hb.d.net.Router()
		state = fmt.Sprintf("ha links %v, hb links %v; bob on ha %q, on hb %q; hilda on ha %q; hank on hb %q; carol on hb %q; every hub link up %v; ha's copy of hb's view names carol %v",
			ra.Linked(), rb.Linked(), ra.Holder("bob"), rb.Holder("bob"), ra.Holder("hilda"), rb.Holder("hank"), rb.Holder("carol"), allLinked(n.ga, n.gb, n.gc, n.ha, n.hb), n.ha.d.net.HubLinks()[0].Names("carol"))
		return slices.Equal(ra.Linked(), []string{"ga", "gb", "hb"}) && slices.Equal(rb.Linked(), []string{"ga", "gb", "gc", "ha"}) &&
			ra.Holder("bob") == "gb" && rb.Holder("bob") == "gb" && ra.Holder("hilda") == "hb" && rb.Holder("hank") == "ha" && rb.Holder("carol") == "gc" &&
			allLinked(n.ga, n.gb, n.gc, n.ha, n.hb) && n.ha.d.net.HubLinks()[0].Names("carol")
	}) {
		known, why, entries := n.ha.d.net.HubLinks()[0].Copy()
		state += fmt.Sprintf("; ha's copy: known %v why %q entries %v", known, why, entries)
		state += fmt.Sprintf("; hb's view %v; ha's view %v", slices.Collect(maps.Keys(n.hb.d.net.Router().View().Entries(nil, true))), slices.Collect(maps.Keys(n.ha.d.net.Router().View().Entries(nil, true))))
		t.Fatalf("waited 20s for every box to link to its hubs and each hub to know every holder: %s", state)
	}
	return n
}

// allLinked says whether each box's own end of each of its hub links is up.
func allLinked(boxes ...*netBox) bool {
	for _, b := range boxes {
		for _, h := range b.d.net.HubLinks() {
			if h.Conn() == nil {
				return false
			}
		}
	}
	return true
}

// sendOnce files one line from box as from, checks a retry is a dup, and that
// the receiver's inbox holds it once.
func sendOnce(t *testing.T, box *netBox, from, to string, inboxOf *netBox) {
	t.Helper()
	c := box.dial(t)
	req := wire.CommFile{From: from, To: to, Text: "from " + from, ID: fmt.Sprintf("ID-%s-%s-%d", from, to, time.Now().UnixNano())}
	if res, err := call(t, c, req); err != nil || !res.OK || res.Dup {
		t.Fatalf("%s on %s to @%s = %+v, %v; want ok", from, box.name, to, res, err)
	}
	if res, err := call(t, c, req); err != nil || !res.OK || !res.Dup {
		t.Fatalf("the retry = %+v, %v; want ok, dup", res, err)
	}
	var n int
	for _, l := range inboxOf.inbox(t, to) {
		if l["id"] == req.ID {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("@%s's inbox on %s holds %s %d times, want once", to, inboxOf.name, req.ID, n)
	}
}

// TestSeveralHubsRoute: with two hubs, every box reaches every other: guests
// through either hub, each hub's own handles through the other, and a hub
// that holds nobody for a handle another hub names sends through that hub.
func TestSeveralHubsRoute(t *testing.T) {
	t.Parallel()
	n := twoHubs(t)
	for _, tc := range []struct {
		name     string
		box      *netBox
		from, to string
		inboxOf  *netBox
	}{
		{"guest to guest", n.ga, "alice", "bob", n.gb},
		{"guest to the first hub's own", n.ga, "alice", "hank", n.ha},
		{"guest to the second hub's own", n.gb, "bob", "hilda", n.hb},
		{"a hub to a guest", n.ha, "hank", "alice", n.ga},
		{"a hub to the other hub's own", n.ha, "hank", "hilda", n.hb},
		{"a guest of one hub to a guest of both", n.gc, "carol", "alice", n.ga},
		{"a hub through another hub", n.ha, "hank", "carol", n.gc},
		{"a guest of both to a guest of one", n.ga, "alice", "carol", n.gc},
	} {
		t.Run(tc.name, func(t *testing.T) { sendOnce(t, tc.box, tc.from, tc.to, tc.inboxOf) })
	}
	// link.status shows each hub link, on a guest and on a hub.
	if st := linkStatus(t, n.ga.rig); len(st.HubLinks) != 2 || st.HubLinks[0].Box != "ha" || st.HubLinks[1].Box != "hb" || !st.HubLinks[0].Up || !st.HubLinks[1].Up {
		t.Errorf("ga's hub_links = %+v, want ha and hb, up", st.HubLinks)
	}
	if st := linkStatus(t, n.ha.rig); len(st.HubLinks) != 1 || st.HubLinks[0].Box != "hb" || !st.HubLinks[0].Up || st.Role != wire.LinkRoleHub {
		t.Errorf("ha's link.status = %+v, want a hub with one hub link, to hb, up", st)
	}
}

// TestLineGoesThroughTheHubThatIsUp: with one hub stopped, a line goes through
// the other; with both down, the refusal names both.
func TestLineGoesThroughTheHubThatIsUp(t *testing.T) {
	t.Parallel()
	n := twoHubs(t)
	if err := n.ha.stop(t); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "ga and gb to see the link to ha end", func() bool {
		return n.ga.d.net.HubLinks()[0].Conn() == nil && n.gb.d.net.HubLinks()[0].Conn() == nil
	})
	sendOnce(t, n.ga, "alice", "bob", n.gb)
	if err := n.hb.stop(t); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "ga to see the link to hb end", func() bool { return n.ga.d.net.HubLinks()[1].Conn() == nil })
	_, err := call(t, n.ga.dial(t), wire.CommFile{From: "alice", To: "bob", Text: "no hub"})
	if err == nil || !strings.Contains(err.Error(), "holds no link to its hubs ha and hb, so @bob was not forwarded — nothing was appended") {
		t.Fatalf("comm.file with both hubs down = %v; want the refusal naming both hubs", err)
	}
}
