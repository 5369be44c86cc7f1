package link

import (
	"context"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/wire"
)

// TestRestartedHubEndsOldLinksAtOnce kills a hub without a word to its guest
// (its socket just closes, as under SIGKILL) and starts it again on the same
// address with the same key: the guest's next packet is answered with a
// stateless reset, so its link ends at once rather than after three silent
// heartbeats.
func TestRestartedHubEndsOldLinksAtOnce(t *testing.T) {
	hid, gid := newID(t, "hub"), newID(t, "guest")
	pins := map[string]string{gid.Fingerprint(): "guest"}
	old := startHubAt(t, hid, pins, Config{}, "127.0.0.1:0", "")
	addr := old.srv.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	g, err := dialQUIC(ctx, Config{Box: "guest"}.withDefaults(), Target{Identity: gid, Hub: "hub", Addr: addr, Key: hid.Fingerprint()})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	old.link(t)

	old.srv.udp.Close() // the hub dies: it tells its guest nothing
	startHubAt(t, hid, pins, Config{}, addr, "")

	start := time.Now()
	cctx, ccancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer ccancel()
	if err := g.Call(cctx, wire.OpCommFile, wire.CommFile{From: "a", To: "b", Text: "x"}, nil); err == nil {
		t.Fatal("a call over a link to a hub that restarted was answered")
	}
	if !testutil.Within(2*time.Second, func() bool { return g.Err() != nil }) {
		t.Fatalf("the guest's link is still up %s after the hub restarted; it should end at the first packet", time.Since(start).Round(time.Millisecond))
	}
	t.Logf("the old link ended after %s: %v", time.Since(start).Round(time.Millisecond), g.Err())
}
