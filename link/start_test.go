package link

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/wire"
)

// A guest sends its full directory the moment it links. The hub's end of the
// link reads nothing until Accept's caller has registered it and called
// Start: read before, as it once was, a full set met no registration and the
// hub took that box's directory for incomplete for the link's whole life
// (every line for a handle no box holds was then offered to it).
func TestAnAcceptedLinkReadsNothingBeforeStart(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			hid, gid := newID(t, "hub"), newID(t, "guest")
			var registered, early atomic.Bool
			var full atomic.Int32
			srv, err := Listen(ServerConfig{
				Config: Config{Box: "hub", Log: (&testutil.SyncBuffer{}).Logger(), OnEvent: func(c *Conn, ev wire.Envelope) {
					var d wire.LinkDirectory
					if ev.Op != wire.OpLinkDirectory || wire.DecodePayload(ev.Payload, &d) != nil {
						return
					}
					if !registered.Load() {
						early.Store(true)
					}
					if d.Full {
						full.Add(1)
					}
				}},
				Identity: hid,
				Pins:     func(fp string) (string, bool) { return "guest", fp == gid.Fingerprint() },
				Addr:     "127.0.0.1:0",
				WSAddr:   "127.0.0.1:0",
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			target := Target{Identity: gid, Hub: "hub", Addr: srv.Addr().String(), WSAddr: srv.WSAddr().String(), Key: hid.Fingerprint()}
			g, err := tr.dial(ctx, Config{Box: "guest"}.withDefaults(), target)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { g.Close() })
			if err := g.SendEvent(wire.OpLinkDirectory, wire.LinkDirectory{Full: true, Added: []string{"alice"}}); err != nil {
				t.Fatal(err)
			}
			c, err := srv.Accept(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// The full set is on its way: a link that read before Start
			// would take it within this look.
			if testutil.Within(300*time.Millisecond, func() bool { return full.Load() > 0 }) {
				t.Fatal("the hub's end read the guest's directory before it was started")
			}
			registered.Store(true)
			c.Start()
			testutil.Eventually(t, 10*time.Second, "the guest's full directory, read once started", func() bool { return full.Load() == 1 })
			if early.Load() {
				t.Fatal("an event was read before the link was registered")
			}
		})
	}
}
