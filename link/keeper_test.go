package link

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/backoff"
	"github.com/sotcomm/sotd/internal/testutil"
)

// TestKeeperRelinksOnItsSchedule runs a Keeper on the Relink policy against a
// real hub that is not there, then comes, and then crashes three times in a row
// (its socket closes without a word and it starts again on the same address),
// each time while the guest is linked. Each crash ends the link by a stateless
// reset, and the wait after it starts the schedule over: it does not double
// from crash to crash. The clock and the sleeps are the test's, so the schedule
// is read, not waited out.
func TestKeeperRelinksOnItsSchedule(t *testing.T) {
	t.Parallel()
	hid, gid := newID(t, "hub"), newID(t, "guest")
	pins := map[string]string{gid.Fingerprint(): "guest"}

	var (
		mu     sync.Mutex
		now    = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		target = Target{Identity: gid, Hub: "hub", Addr: testutil.SilentUDP(t), Key: hid.Fingerprint()}
		h      *hub
		waits  []time.Duration
		whys   []string // why each link ended
		ups    int
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The hub comes up on a port of its own, then crashes and starts again
	// on the same one.
	start := func(addr string) {
		h = startHubAt(t, hid, pins, Config{}, addr, "")
		target.Addr = h.srv.Addr().String()
	}
	log := &testutil.SyncBuffer{}
	k := &Keeper{
		// Beats come often, so a crashed hub's reset comes soon: the guest's
		// next beat draws it. The link is down only after three beats
		// unheard, so the reset has two beats' time to win under load (at
		// 20 ms beats the full suite on 2 cores let the silence win).
		Config: Config{Box: "guest", QUICWait: time.Second, Heartbeat: 300 * time.Millisecond, Log: log.Logger()},
		// The first two attempts find no hub answering; the next ones find
		// hosts.toml unreadable, until the hub comes.
		Resolve: func() (Target, error) {
			mu.Lock()
			defer mu.Unlock()
			if n := len(waits); n >= 2 && n < 7 {
				return Target{}, errors.New("hosts.toml: line 1: unknown key \"hubb\"")
			}
			return target, nil
		},
	}
	k.Up = func(c *Conn) {
		mu.Lock()
		defer mu.Unlock()
		ups++
		now = now.Add(10 * time.Second) // up well under a minute
		h.srv.udp.Close()               // the hub crashes under the link
		start(target.Addr)
	}
	loop := backoff.Loop{
		Policy: Relink,
		Name:   "link to hub",
		Log:    log.Logger(),
		Now:    func() time.Time { mu.Lock(); defer mu.Unlock(); return now },
		Rand:   func(n time.Duration) time.Duration { return n - 1 }, // the top of each range
		Sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			now = now.Add(d)
			waits = append(waits, d)
			if len(waits) > 7 {
				whys = append(whys, k.LastError().Error())
			}
			switch len(waits) {
			case 7: // the hub comes up
				start("127.0.0.1:0")
			case 10: // after its third crash
				cancel()
			}
			return ctx.Err()
		},
	}
	done := make(chan struct{})
	go func() { loop.Run(ctx, k.Run); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the keeper did not finish its schedule within 30s")
	}
	mu.Lock()
	defer mu.Unlock()
	s := time.Second
	want := []time.Duration{2 * s, 4 * s, 8 * s, 16 * s, 32 * s, 60 * s, 60 * s, 2 * s, 2 * s, 2 * s}
	if len(waits) != len(want) {
		t.Fatalf("waits %v, want %v; the keeper logged:\n%s", waits, want, log.String())
	}
	for i := range want {
		if waits[i] != want[i] {
			t.Errorf("wait %d = %s, want %s", i, waits[i], want[i])
		}
	}
	if ups != 3 {
		t.Fatalf("linked %d times, want 3 (once per hub start); the keeper logged:\n%s", ups, log.String())
	}
	for i, why := range whys {
		if !strings.Contains(why, "stateless reset") {
			t.Errorf("link %d ended with %q; want the restarted hub's stateless reset", i+1, why)
		}
	}
	if k.Current() != nil {
		t.Fatal("Current() still shows a link after Run returned")
	}
}

// TestKeeperRereadsTargetAndShowsTheLink: each Run is one attempt, which reads
// the target again; one that fails returns why, one that links holds the link
// until ctx ends.
func TestKeeperRereadsTargetAndShowsTheLink(t *testing.T) {
	hid, gid := newID(t, "hub"), newID(t, "guest")
	h := startHub(t, hid, map[string]string{gid.Fingerprint(): "guest"}, Config{Handler: echo("hub")})
	var (
		mu       sync.Mutex
		resolves int
	)
	k := &Keeper{
		Config: Config{Box: "guest"},
		Resolve: func() (Target, error) {
			mu.Lock()
			defer mu.Unlock()
			resolves++
			if resolves == 1 {
				return Target{}, errors.New("hosts.toml: line 3: hub \"x\" is not listed")
			}
			return h.target(gid), nil
		},
	}
	var up, down *Conn
	k.Up = func(c *Conn) { mu.Lock(); up = c; mu.Unlock() }
	k.Down = func(c *Conn) {
		mu.Lock()
		defer mu.Unlock()
		if c.Err() == nil {
			t.Error("Down got a link that has not ended")
		}
		down = c
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := k.Run(ctx); err == nil || !contains(err.Error(), "where to link", "is not listed") {
		t.Fatalf("the first attempt = %v, want its hosts.toml error", err)
	}
	done := make(chan error, 1)
	go func() { done <- k.Run(ctx) }()
	testutil.Eventually(t, 5*time.Second, "a link after hosts.toml was fixed", func() bool { return k.Current() != nil })
	if err := k.LastError(); err == nil || !contains(err.Error(), "where to link", "is not listed") {
		t.Fatalf("LastError() = %v, want the failed attempt's hosts.toml error", err)
	}
	var got struct{ To string }
	if err := k.Current().Call(ctx, "comm.file", map[string]string{"from": "a", "to": "b"}, &got); err != nil || got.To != "b@hub" {
		t.Fatalf("call over the kept link = %+v, %v", got, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if k.Current() != nil {
		t.Fatal("Current() still shows a link after Run returned")
	}
	mu.Lock()
	defer mu.Unlock()
	if up == nil || down != up {
		t.Fatalf("Up got %p and Down %p by the time Run returned; want the one link both", up, down)
	}
}
