package link

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/internal/testutil"
)

func TestRefusedLinksGetNothing(t *testing.T) {
	t.Parallel()
	hid, gid, stranger := newID(t, "hub"), newID(t, "guest"), newID(t, "stranger")
	for _, tc := range []struct {
		name     string
		pins     map[string]string // the hub's hosts.toml
		guestBox string
		guestID  *identity.Identity
		hubKey   string // the guest's pin for the hub
		guestErr []string
		hubLog   []string // what the hub logs; nil when it never hears of the guest
	}{
		{name: "guest key not listed", pins: map[string]string{stranger.Fingerprint(): "stranger"}, guestBox: "guest", guestID: gid, hubKey: hid.Fingerprint(),
			guestErr: []string{"refused this box's key", "key = \"" + gid.Fingerprint() + "\" under [host.guest]"}, hubLog: []string{"link refused", "no box in hosts.toml is pinned to key " + gid.Fingerprint()}},
		{name: "hub key not the pinned one", pins: map[string]string{gid.Fingerprint(): "guest"}, guestBox: "guest", guestID: gid, hubKey: stranger.Fingerprint(),
			guestErr: []string{"presented key " + hid.Fingerprint(), "pins " + stranger.Fingerprint()}},
		{name: "no pin for the hub", pins: map[string]string{gid.Fingerprint(): "guest"}, guestBox: "guest", guestID: gid, hubKey: "",
			guestErr: []string{"pins no key for hub"}},
		{name: "hello names another box", pins: map[string]string{gid.Fingerprint(): "guest"}, guestBox: "imposter", guestID: gid, hubKey: hid.Fingerprint(),
			guestErr: []string{"refused this box's hello", `the hello says box "imposter" but its key is pinned to box "guest"`},
			hubLog:   []string{"link refused", `the hello says box \"imposter\"`}},
	} {
		for _, tr := range transports {
			t.Run(tc.name+"/"+tr.name, func(t *testing.T) {
				var served atomic.Int64
				h := startHub(t, hid, tc.pins, Config{Handler: func(context.Context, *Conn, string, json.RawMessage) (any, error) {
					served.Add(1)
					return nil, nil
				}})
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				target := h.target(tc.guestID)
				target.Key = tc.hubKey
				c, err := tr.dial(ctx, Config{Box: tc.guestBox}.withDefaults(), target)
				if err == nil {
					c.Close()
					t.Fatal("the link was made")
				}
				if !errors.Is(err, ErrRefused) || !contains(err.Error(), tc.guestErr...) {
					t.Fatalf("dial error %q (refused: %v); want a refusal saying %q", err, errors.Is(err, ErrRefused), tc.guestErr)
				}
				t.Logf("the guest is told: %v", err)
				if tc.hubLog != nil && !testutil.Within(2*time.Second, func() bool { return contains(h.log.String(), tc.hubLog...) }) {
					t.Fatalf("hub log lacks %q:\n%s", tc.hubLog, h.log.String())
				}
				select {
				case c := <-h.links:
					t.Fatalf("the hub admitted a link from %s", c.Box())
				case <-time.After(100 * time.Millisecond):
				}
				if served.Load() != 0 {
					t.Fatal("a refused box was served")
				}
			})
		}
	}
}

func TestDialFallsBackToWebSocketOnlyWhenQUICDoesNotGetThrough(t *testing.T) {
	t.Parallel()
	hid, gid := newID(t, "hub"), newID(t, "guest")
	h := startHub(t, hid, map[string]string{gid.Fingerprint(): "guest"}, Config{Handler: echo("hub")})
	const wait = 300 * time.Millisecond
	cfg := Config{Box: "guest", QUICWait: wait}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	direct, err := Dial(ctx, Config{Box: "guest"}, h.target(gid))
	if err != nil {
		t.Fatal(err)
	}
	direct.Close()
	if direct.Transport() != "quic" {
		t.Fatalf("with UDP open the link went over %s", direct.Transport())
	}

	blocked := h.target(gid)
	blocked.Addr = testutil.SilentUDP(t)
	start := time.Now()
	c, err := Dial(ctx, cfg, blocked)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Transport() != "ws" || time.Since(start) < wait {
		t.Fatalf("with UDP blocked the link went over %s after %s, want ws after %s", c.Transport(), time.Since(start), wait)
	}
	var got struct{ To string }
	if err := c.Call(ctx, "comm.file", map[string]string{"from": "a", "to": "b"}, &got); err != nil || got.To != "b@hub" {
		t.Fatalf("call over the fallback = %+v, %v", got, err)
	}

	noWS := blocked
	noWS.WSAddr = ""
	if _, err := Dial(ctx, cfg, noWS); !errors.Is(err, errNoQUIC) {
		t.Fatalf("with UDP blocked and no ws_addr: %v, want errNoQUIC", err)
	}

	refused := blocked
	refused.Addr = h.srv.Addr().String()
	refused.Key = gid.Fingerprint() // the wrong pin: refused over QUIC, so WebSocket is not tried
	_, err = Dial(ctx, Config{Box: "guest", Log: h.log.Logger()}, refused)
	if !errors.Is(err, ErrRefused) || contains(h.log.String(), "trying WebSocket") {
		t.Fatalf("a refusal over QUIC: %v; want ErrRefused and no WebSocket try", err)
	}
}

// TestRefusedHandshakesInALoopWarnAFewTimes: anyone who reaches the hub's
// port can be refused over and over; the hub says so at Warn a few times a
// minute, the rest at Debug, rather than a Warn line per handshake.
func TestRefusedHandshakesInALoopWarnAFewTimes(t *testing.T) {
	hid, stranger := newID(t, "hub"), newID(t, "stranger")
	h := startHub(t, hid, map[string]string{}, Config{})
	const tries = refusedBurst + 8
	for range tries {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := Dial(ctx, Config{Box: "stranger"}, h.target(stranger))
		cancel()
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("a stranger's dial: %v, want it refused", err)
		}
	}
	count := func(level string) int {
		return strings.Count(h.log.String(), "level="+level+` msg="link refused"`)
	}
	if !testutil.Within(5*time.Second, func() bool { return count("WARN")+count("DEBUG") >= tries }) {
		t.Fatalf("the hub logged %d refusals at Warn and %d at Debug, want %d in all:\n%s", count("WARN"), count("DEBUG"), tries, h.log.String())
	}
	if n := count("WARN"); n != refusedBurst {
		t.Errorf("%d of %d refusals logged at Warn within a minute, want %d:\n%s", n, tries, refusedBurst, h.log.String())
	}
}
