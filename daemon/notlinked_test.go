package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/wire"
)

// TestDaemonBoxCutOffIsNamed: a box that runs a daemon and no frontend still
// holds handles, so while it is cut off a send to one of them is answered
// with that box named as not linked, not as a handle no box knows.
func TestDaemonBoxCutOffIsNamed(t *testing.T) {
	t.Parallel()
	live := testNow.Add(-time.Minute)
	hh, hk := boxHome(t, "hb", map[string]time.Time{"hank": live})
	ah, ak := boxHome(t, "ga", map[string]time.Time{"alice": live})
	vh, vk := boxHome(t, "gv", map[string]time.Time{"vic": live})
	hosts := filepath.Join(t.TempDir(), "hosts.toml")
	toml := fmt.Sprintf("hub = \"hb\"\n[host.hb]\ndaemon = true\naddr = %q\nkey = %q\n"+
		"[host.ga]\ndaemon = true\nfrontend = true\nkey = %q\n[host.gv]\ndaemon = true\nfrontend = false\nkey = %q\n",
		testutil.FreeUDP(t), hk, ak, vk)
	if err := os.WriteFile(hosts, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	hb := startBox(t, hh, "hb", hosts)
	ga := startBox(t, ah, "ga", hosts)
	gv := startBox(t, vh, "gv", hosts)
	waitFor(t, "gv to link and tell the hub of vic", func() bool { return hb.d.net.Router().Holder("vic") == "gv" })
	// ga forwards only over a link it holds: a send before its keeper has one
	// is refused as "holds no link to its hub", whatever gv's state.
	waitFor(t, "ga to hold its link to the hub", func() bool { return ga.d.net.HubLinks()[0].Keeper().Current() != nil })
	if _, err := call(t, ga.dial(t), wire.CommFile{From: "alice", To: "vic", Text: "while linked"}); err != nil {
		t.Fatalf("comm.file to @vic while gv is linked: %v", err)
	}

	if err := gv.stop(t); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the hub to see gv's link end", func() bool { return slices.Equal(hb.d.net.Router().Linked(), []string{"ga"}) })
	for _, to := range []string{"vic", "nobody"} {
		_, err := call(t, ga.dial(t), wire.CommFile{From: "alice", To: to, Text: "while cut off"})
		want := "no linked box knows that handle: " + to + "; not linked: gv"
		wantRefusal(t, err, wire.CodeNotHere, want)
		if err.Error() != want {
			t.Fatalf("comm.file to @%s = %q, want exactly %q", to, err, want)
		}
	}
}

// The hub keeps hosts.toml's list of boxes that should link between lines, and
// parses it again once the file changed: a box added there is named at once.
func TestTheHubNamesABoxAddedToHostsTomlSinceItsLastRead(t *testing.T) {
	t.Parallel()
	hb, ga, _ := threeBoxes(t)
	_, err := call(t, ga.dial(t), wire.CommFile{From: "alice", To: "nobody", Text: "before"})
	wantRefusal(t, err, wire.CodeNotHere, "no linked box knows that handle: nobody; not linked: gx")
	hosts := hb.d.cfg.HostsPath
	raw, err := os.ReadFile(hosts)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hosts, append(raw, "[host.gy]\nfrontend = true\nkey = \"ed25519:neverlinkseither\"\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = call(t, ga.dial(t), wire.CommFile{From: "alice", To: "nobody-else", Text: "after"})
	wantRefusal(t, err, wire.CodeNotHere, "no linked box knows that handle: nobody-else; not linked: gx, gy")
}
