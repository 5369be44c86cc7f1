package link

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
			env, err := call(ctx, g.car, id, f)
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

// Go hands each answer to its own done, on every transport, past MaxInFlight
// too; a request given up is told to the peer's handler (over QUIC), and one
// still out when the link ends gets ErrClosed.
func TestGoHandsEachAnswerToItsDone(t *testing.T) {
	var handlerEnded atomic.Bool
	reached := make(chan struct{}, 1) // a stuck request is in its handler
	handler := func(ctx context.Context, c *Conn, op string, payload json.RawMessage) (any, error) {
		var req wire.CommFile
		wire.DecodePayload(payload, &req)
		if req.To == "stuck" {
			select {
			case reached <- struct{}{}:
			default:
			}
			<-ctx.Done()
			handlerEnded.Store(true)
			return nil, ctx.Err()
		}
		return wire.CommFiled{OK: true, To: req.To}, nil
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			handlerEnded.Store(false)
			_, g, h := pair(t, tr.dial, Config{Handler: handler}, Config{})
			const n = 3 * MaxInFlight
			type got struct {
				want string
				res  *wire.CommFiled
				err  error
			}
			answers := make(chan got, n)
			for i := range n {
				to := fmt.Sprintf("h%03d", i)
				res := new(wire.CommFiled)
				g.Go(wire.OpCommFile, wire.CommFile{From: "a", To: to}, res, func(err error) { answers <- got{to, res, err} })
			}
			for range n {
				select {
				case a := <-answers:
					if a.err != nil || a.res.To != a.want {
						t.Fatalf("Go for %s = %+v, %v", a.want, *a.res, a.err)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("Go's answers did not all come within 10s")
				}
			}

			stuck := make(chan error, 1)
			cancel := g.Go(wire.OpCommFile, wire.CommFile{From: "a", To: "stuck"}, nil, func(err error) { stuck <- err })
			<-reached
			cancel()
			if err := <-stuck; !errors.Is(err, context.Canceled) {
				t.Fatalf("a request given up = %v; want context.Canceled", err)
			}
			if tr.kind == "quic" && !testutil.Within(2*time.Second, handlerEnded.Load) {
				t.Fatal("the handler of a request given up never saw its ctx end")
			}

			out := make(chan error, 1)
			g.Go(wire.OpCommFile, wire.CommFile{From: "a", To: "stuck"}, nil, func(err error) { out <- err })
			<-reached
			h.stop()
			select {
			case err := <-out:
				if !errors.Is(err, ErrClosed) {
					t.Fatalf("a request out when the link ended = %v; want ErrClosed", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("a request outlived its link by 5s")
			}
		})
	}
}
