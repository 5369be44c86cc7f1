package link

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/wire"
)

// multiplexed says whether a QUIC link carries its requests on one stream per
// direction.
func multiplexed(c *Conn) bool { return c.car.(*quicCarrier).out != nil }

func TestQUICLinksCarryRequestsOnOneStreamEachWayWhenBothEndsCan(t *testing.T) {
	for _, tc := range []struct {
		name       string
		hub, guest Config
		want       bool
	}{
		{name: "both new", want: true},
		{name: "an older guest", guest: Config{perCall: true}},
		{name: "an older hub", hub: Config{perCall: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.hub.Handler, tc.guest.Handler = echo("hub"), echo("guest")
			hubEnd, g, _ := pair(t, dialQUIC, tc.hub, tc.guest)
			if multiplexed(hubEnd) != tc.want || multiplexed(g) != tc.want {
				t.Fatalf("multiplexed at the hub %v, at the guest %v; want %v at both", multiplexed(hubEnd), multiplexed(g), tc.want)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			for _, c := range []struct {
				from *Conn
				want string
			}{{g, "b@hub"}, {hubEnd, "b@guest"}} {
				var got wire.CommFiled
				if err := c.from.Call(ctx, wire.OpCommFile, wire.CommFile{From: "a", To: "b"}, &got); err != nil || got.To != c.want {
					t.Fatalf("call from %s = %+v, %v; want %s", c.from.cfg.Box, got, err, c.want)
				}
			}
		})
	}
}

// A peer that writes past MaxInFlight on its request stream, bypassing Call's
// own bound, is served MaxInFlight at a time; the rest wait their turn.
func TestAMultiplexedPeerPastItsBoundWaitsItsTurn(t *testing.T) {
	release := make(chan struct{})
	var running, most, handled atomic.Int64
	block := func(ctx context.Context, c *Conn, op string, payload json.RawMessage) (any, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		handled.Add(1)
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return wire.CommFiled{OK: true}, nil
	}
	_, g, _ := pair(t, dialQUIC, Config{Handler: block}, Config{})
	const sent = 3 * MaxInFlight
	var wg sync.WaitGroup
	var ok atomic.Int64
	for i := range sent {
		wg.Go(func() {
			id := uint64(1000 + i)
			f, _ := wire.EncodeFrame(id, wire.KindReq, wire.OpCommFile, wire.CommFile{From: "a", To: "b"})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			env, err := g.car.call(ctx, id, f)
			if err == nil {
				err = wire.Answer(env, nil)
			}
			if err != nil {
				t.Error(err)
				return
			}
			ok.Add(1)
		})
	}
	if !testutil.Within(5*time.Second, func() bool { return handled.Load() == MaxInFlight }) {
		t.Fatalf("%d requests handled; want the first %d", handled.Load(), MaxInFlight)
	}
	close(release)
	wg.Wait()
	if most.Load() > MaxInFlight || ok.Load() != sent {
		t.Fatalf("%d handlers ran at once and %d of %d were answered; want at most %d at once and every one answered", most.Load(), ok.Load(), sent, MaxInFlight)
	}
}
