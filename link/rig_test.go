package link

import (
	"context"
	"encoding/json"
	"flag"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/wire"
)

func TestMain(m *testing.M) {
	// The parallel tests here wait on real time (heartbeats, a dead link's
	// judge, a relink's backoff), not the CPU.
	flag.Parse()
	testutil.AtLeastParallel(6)
	goleak.VerifyTestMain(m)
}

// transports are the ways a guest links; dial skips Dial's choice. kind is
// the transport's name; "quic-per-call" is a guest older than multiplexed
// links, which sends each request on a stream of its own, and so does the hub
// to it.
var transports = []struct {
	name, kind string
	dial       func(ctx context.Context, cfg Config, t Target) (*Conn, error)
}{
	{"quic", "quic", dialQUIC},
	{"quic-per-call", "quic", func(ctx context.Context, cfg Config, t Target) (*Conn, error) {
		cfg.perCall = true
		return dialQUIC(ctx, cfg, t)
	}},
	{"ws", "ws", dialWS},
}

// newID makes box's key in a fresh home, as a daemon's first start does.
func newID(t testing.TB, box string) *identity.Identity {
	t.Helper()
	id, err := identity.Load(home.Home{Dir: filepath.Join(t.TempDir(), box)}, box)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// hub is a running link server and the links it accepted.
type hub struct {
	srv   *Server
	id    *identity.Identity
	log   *testutil.SyncBuffer
	links chan *Conn
	wg    sync.WaitGroup
}

// startHub listens on loopback (QUIC and WebSocket) with pins, the hub's key
// from id, and cfg's handler and events.
func startHub(t testing.TB, id *identity.Identity, pins map[string]string, cfg Config) *hub {
	t.Helper()
	return startHubAt(t, id, pins, cfg, "127.0.0.1:0", "127.0.0.1:0")
}

// startHubAt is startHub on given addresses: a hub restarting where it was.
func startHubAt(t testing.TB, id *identity.Identity, pins map[string]string, cfg Config, addr, wsAddr string) *hub {
	t.Helper()
	h := &hub{id: id, log: &testutil.SyncBuffer{}, links: make(chan *Conn, 16)}
	cfg.Box = "hub"
	cfg.Log = h.log.Logger()
	srv, err := Listen(ServerConfig{
		Config:   cfg,
		Identity: id,
		Pins:     func(fp string) (string, bool) { b, ok := pins[fp]; return b, ok },
		Addr:     addr,
		WSAddr:   wsAddr,
	})
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	h.wg.Go(func() {
		for {
			c, err := srv.Accept(context.Background())
			if err != nil {
				return
			}
			c.Start()
			h.links <- c
		}
	})
	t.Cleanup(h.stop)
	return h
}

func (h *hub) stop() {
	h.srv.Close()
	h.wg.Wait()
}

// target is where a guest with id links to h.
func (h *hub) target(id *identity.Identity) Target {
	return Target{Identity: id, Hub: "hub", Addr: h.srv.Addr().String(), WSAddr: h.srv.WSAddr().String(), Key: h.id.Fingerprint()}
}

// link returns the hub's side of the next admitted link.
func (h *hub) link(t testing.TB) *Conn {
	t.Helper()
	select {
	case c := <-h.links:
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("the hub admitted no link within 5s")
		return nil
	}
}

// pair links a guest to a fresh hub over transport tr and returns both ends.
func pair(t testing.TB, dial func(context.Context, Config, Target) (*Conn, error), hubCfg, guestCfg Config) (hubEnd, guestEnd *Conn, h *hub) {
	t.Helper()
	hid, gid := newID(t, "hub"), newID(t, "guest")
	h = startHub(t, hid, map[string]string{gid.Fingerprint(): "guest"}, hubCfg)
	guestCfg.Box = "guest"
	guestCfg = guestCfg.withDefaults()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g, err := dial(ctx, guestCfg, h.target(gid))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return h.link(t), g, h
}

// echo answers comm.file with its receiver marked by the answering box.
func echo(box string) Handler {
	return func(ctx context.Context, c *Conn, op string, payload json.RawMessage) (any, error) {
		var req wire.CommFile
		if err := wire.DecodePayload(payload, &req); err != nil {
			return nil, err
		}
		return wire.CommFiled{OK: true, To: req.To + "@" + box}, nil
	}
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// call sends one request frame on car, as a misbehaving peer could, past
// Call's checks and bounds, and waits for its answer; ctx bounds the wait.
func call(ctx context.Context, car carrier, id uint64, frame []byte) (wire.Envelope, error) {
	type result struct {
		env wire.Envelope
		err error
	}
	ch := make(chan result, 1)
	cancel := car.start(id, frame, func(env wire.Envelope, err error) { ch <- result{env, err} }, nil)
	select {
	case r := <-ch:
		return r.env, r.err
	case <-ctx.Done():
		cancel()
		return wire.Envelope{}, ctx.Err()
	}
}
