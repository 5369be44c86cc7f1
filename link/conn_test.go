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

func TestCallsGoBothWays(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			hubEnd, guestEnd, _ := pair(t, tr.dial, Config{Handler: echo("hub")}, Config{Handler: echo("guest")})
			if hubEnd.Box() != "guest" || guestEnd.Box() != "hub" {
				t.Fatalf("Box() = %q at the hub and %q at the guest, want guest and hub", hubEnd.Box(), guestEnd.Box())
			}
			if hubEnd.Transport() != tr.kind || guestEnd.Transport() != tr.kind {
				t.Fatalf("Transport() = %q and %q, want %s", hubEnd.Transport(), guestEnd.Transport(), tr.kind)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var got wire.CommFiled
			if err := guestEnd.Call(ctx, wire.OpCommFile, wire.CommFile{From: "a", To: "bob", Forwarded: true}, &got); err != nil || got.To != "bob@hub" {
				t.Fatalf("forward: %+v, %v; want filed by the hub", got, err)
			}
			if err := hubEnd.Call(ctx, wire.OpCommFile, wire.CommFile{From: "a", To: "carol", Forwarded: true}, &got); err != nil || got.To != "carol@guest" {
				t.Fatalf("offer: %+v, %v; want filed by the guest", got, err)
			}
		})
	}
}

func TestRefusalsPassThroughInTheirOwnWords(t *testing.T) {
	handler := func(ctx context.Context, c *Conn, op string, payload json.RawMessage) (any, error) {
		var req wire.CommFile
		wire.DecodePayload(payload, &req)
		switch req.To {
		case "stale":
			return nil, &wire.Refusal{Code: wire.CodeNoLiveSession, Sentence: "no live session holds @stale"}
		case "broken":
			return nil, errors.New("the inbox of @broken could not be appended to: disk full")
		}
		return wire.CommFiled{OK: true, To: req.To}, nil
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			_, g, _ := pair(t, tr.dial, Config{Handler: handler}, Config{})
			for _, tc := range []struct{ to, code, sentence string }{
				{"stale", wire.CodeNoLiveSession, "no live session holds @stale"},
				{"broken", wire.CodeFileFailed, "the inbox of @broken could not be appended to: disk full"},
			} {
				err := g.Call(context.Background(), wire.OpCommFile, wire.CommFile{From: "a", To: tc.to}, nil)
				var re *wire.Refusal
				if !errors.As(err, &re) || re.Code != tc.code || re.Sentence != tc.sentence {
					t.Errorf("call to %s = %v; want %s %q", tc.to, err, tc.code, tc.sentence)
				}
			}
			_, bare, _ := pair(t, tr.dial, Config{}, Config{})
			err := bare.Call(context.Background(), "comm.nosuch", struct{}{}, nil)
			var re *wire.Refusal
			if !errors.As(err, &re) || re.Code != wire.CodeUnknownOp {
				t.Errorf("a link with no handler answered %v, want unknown_op", err)
			}
		})
	}
}

func TestConcurrentCallsEachGetTheirOwnAnswer(t *testing.T) {
	const calls = 2*MaxInFlight + 8 // more than a link carries at once: the rest wait their turn
	slow := func(ctx context.Context, c *Conn, op string, payload json.RawMessage) (any, error) {
		var req wire.CommFile
		wire.DecodePayload(payload, &req)
		if d, err := time.ParseDuration(req.Text); err == nil {
			time.Sleep(d) // answers come back out of order
		}
		return wire.CommFiled{OK: true, To: req.To}, nil
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			_, g, _ := pair(t, tr.dial, Config{Handler: slow}, Config{})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var wg sync.WaitGroup
			errs := make(chan error, calls)
			for i := range calls {
				wg.Go(func() {
					to := fmt.Sprintf("h%03d", i)
					var got wire.CommFiled
					err := g.Call(ctx, wire.OpCommFile, wire.CommFile{From: "a", To: to, Text: fmt.Sprintf("%dms", (calls-i)%20)}, &got)
					switch {
					case err != nil:
						errs <- err
					case got.To != to:
						errs <- fmt.Errorf("the call for %s got the answer for %s", to, got.To)
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

func TestABlockedHandlerDelaysNoOtherAnswer(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	reached := make(chan struct{}, 1) // the stuck request is in its handler
	var stuckEnded atomic.Bool
	handler := func(ctx context.Context, c *Conn, op string, payload json.RawMessage) (any, error) {
		var req wire.CommFile
		wire.DecodePayload(payload, &req)
		if req.To == "stuck" { // an inbox lock held by someone else
			select {
			case reached <- struct{}{}:
			default:
			}
			select {
			case <-ctx.Done():
				stuckEnded.Store(true)
				return nil, ctx.Err()
			case <-release:
			}
		}
		return wire.CommFiled{OK: true, To: req.To}, nil
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			stuckEnded.Store(false)
			_, g, _ := pair(t, tr.dial, Config{Handler: handler}, Config{})
			stuckCtx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
			defer cancel()
			stuck := make(chan error, 1)
			go func() { stuck <- g.Call(stuckCtx, wire.OpCommFile, wire.CommFile{From: "a", To: "stuck"}, nil) }()
			<-reached
			start := time.Now()
			var got wire.CommFiled
			if err := g.Call(context.Background(), wire.OpCommFile, wire.CommFile{From: "a", To: "quick"}, &got); err != nil || got.To != "quick" {
				t.Fatalf("quick call = %+v, %v", got, err)
			}
			select {
			case err := <-stuck:
				t.Fatalf("the quick answer came after the blocked call ended (%v)", err)
			default:
			}
			t.Logf("the quick answer took %s beside a blocked handler", time.Since(start))
			if err := <-stuck; !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("the stuck call = %v, want its deadline", err)
			}
			if tr.kind == "quic" && !testutil.Within(2*time.Second, stuckEnded.Load) {
				t.Error("the abandoned call's handler never saw its ctx end")
			}
			if err := g.Call(context.Background(), wire.OpCommFile, wire.CommFile{From: "a", To: "after"}, &got); err != nil || got.To != "after" {
				t.Fatalf("a call after an abandoned one = %+v, %v; want the link still usable", got, err)
			}
		})
	}
	close(release)
}

func TestEventsArriveInOrder(t *testing.T) {
	type seen struct {
		mu  sync.Mutex
		dir []wire.LinkDirectory
	}
	collect := func(s *seen) func(c *Conn, ev wire.Envelope) {
		return func(c *Conn, ev wire.Envelope) {
			var d wire.LinkDirectory
			if ev.Op != wire.OpLinkDirectory || wire.DecodePayload(ev.Payload, &d) != nil {
				return
			}
			s.mu.Lock()
			s.dir = append(s.dir, d)
			s.mu.Unlock()
		}
	}
	events := []wire.LinkDirectory{
		{Full: true, Added: []string{"a-box", "b-box"}},
		{Added: []string{"c-box"}},
		{Removed: []string{"a-box"}},
		{Added: []string{"a-box"}, Removed: []string{"c-box"}},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			var atHub, atGuest seen
			h, g, _ := pair(t, tr.dial, Config{OnEvent: collect(&atHub)}, Config{OnEvent: collect(&atGuest), Heartbeat: 10 * time.Millisecond})
			for _, ev := range events {
				if err := g.SendEvent(wire.OpLinkDirectory, ev); err != nil {
					t.Fatal(err)
				}
			}
			if err := h.SendEvent(wire.OpLinkDirectory, events[0]); err != nil {
				t.Fatal(err)
			}
			count := func(s *seen, n int) func() bool {
				return func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.dir) >= n }
			}
			if !testutil.Within(5*time.Second, count(&atHub, len(events))) || !testutil.Within(5*time.Second, count(&atGuest, 1)) {
				t.Fatalf("events seen: %d at the hub, %d at the guest", len(atHub.dir), len(atGuest.dir))
			}
			atHub.mu.Lock()
			defer atHub.mu.Unlock()
			for i, want := range events {
				if fmt.Sprint(atHub.dir[i]) != fmt.Sprint(want) {
					t.Errorf("event %d at the hub = %+v, want %+v", i, atHub.dir[i], want)
				}
			}
			if len(atHub.dir) != len(events) {
				t.Errorf("the hub saw %d directory events, want %d (heartbeats are not events)", len(atHub.dir), len(events))
			}
		})
	}
}

// TestHeartbeatFindsADeadPeer kills one end's socket, as kill -9 does: the
// other end finds it dead DeadAfter after its last word, by its heartbeat or
// QUIC's idle timer, whichever is first, and says so in the same words.
func TestHeartbeatFindsADeadPeer(t *testing.T) {
	t.Parallel()
	// Five beats to a death: a window of three fired on a healthy link when a
	// loaded machine (-race, both cores busy) held a beat back.
	const every, dead = 200 * time.Millisecond, time.Second
	for _, tc := range []struct {
		name  string
		kill  func(h *hub, guest *Conn) // the side that dies, abruptly
		alive func(hubEnd, guest *Conn) *Conn
		peer  string
	}{
		{"the hub dies", func(h *hub, _ *Conn) { h.srv.udp.Close() }, func(_, g *Conn) *Conn { return g }, "hub"},
		{"the guest dies", func(_ *hub, g *Conn) { g.car.(*quicCarrier).own.(closers)[1].Close() }, func(h, _ *Conn) *Conn { return h }, "guest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Heartbeat: every, DeadAfter: dead}
			hubEnd, g, h := pair(t, dialQUIC, cfg, cfg)
			time.Sleep(2 * dead) // heartbeats flow, and keep a quiet link up
			if hubEnd.Err() != nil || g.Err() != nil {
				t.Fatalf("a healthy link died: %v / %v", hubEnd.Err(), g.Err())
			}
			alive := tc.alive(hubEnd, g)
			killed := time.Now()
			tc.kill(h, g)
			select {
			case <-alive.Done():
			case <-time.After(20 * every):
				t.Fatalf("the link to the dead %s is still up after %s", tc.peer, 20*every)
			}
			err := alive.Err()
			if !errors.Is(err, ErrClosed) || !contains(err.Error(), "nothing from "+tc.peer) {
				t.Fatalf("Err() = %v; want the heartbeat's verdict on %s", err, tc.peer)
			}
			// The last word came before the kill, so this bounds the wait
			// from above.
			took := time.Since(killed)
			// The bound is loose: that detection keeps to DeadAfter itself is
			// TestASilentPeerIsDeadAtDeadAfter's to show.
			if took > 2*dead {
				t.Fatalf("the dead %s was found %s after it died; want %s at the latest", tc.peer, took.Round(time.Millisecond), dead)
			}
			t.Logf("dead %s found after %s: %v", tc.peer, took.Round(time.Millisecond), err)
		})
	}
}

func TestALinkThatEndsFailsItsCalls(t *testing.T) {
	reached := make(chan struct{}, 1) // the call is in its handler
	block := func(ctx context.Context, c *Conn, op string, payload json.RawMessage) (any, error) {
		select {
		case reached <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			_, g, h := pair(t, tr.dial, Config{Handler: block}, Config{})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- g.Call(ctx, wire.OpCommFile, wire.CommFile{From: "a", To: "b"}, nil) }()
			<-reached
			h.stop()
			select {
			case err := <-done:
				if !errors.Is(err, ErrClosed) {
					t.Fatalf("call = %v, want ErrClosed", err)
				}
			case <-time.After(3 * time.Second):
				t.Fatal("a call outlived its link by 3s")
			}
			if err := g.Call(ctx, wire.OpCommFile, wire.CommFile{From: "a", To: "b"}, nil); !errors.Is(err, ErrClosed) {
				t.Fatalf("a call on a dead link = %v, want ErrClosed", err)
			}
		})
	}
}

func TestWebSocketRefusesAPeerThatOverrunsItsBound(t *testing.T) {
	release := make(chan struct{})
	var handled atomic.Int64
	block := func(ctx context.Context, c *Conn, op string, payload json.RawMessage) (any, error) {
		handled.Add(1)
		<-release
		return wire.CommFiled{OK: true}, nil
	}
	_, g, _ := pair(t, dialWS, Config{Handler: block}, Config{})
	// The carrier itself, past Call's own bound, as a misbehaving peer would.
	const sent = 3 * MaxInFlight
	var wg sync.WaitGroup
	var busy, ok atomic.Int64
	for i := range sent {
		wg.Go(func() {
			id := uint64(1000 + i)
			f, _ := wire.EncodeFrame(id, wire.KindReq, wire.OpCommFile, wire.CommFile{From: "a", To: "b"})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			env, err := call(ctx, g.car, id, f)
			if err != nil {
				t.Error(err)
				return
			}
			var re *wire.Refusal
			switch err := wire.Answer(env, nil); {
			case errors.As(err, &re) && re.Code == wire.CodeBusy:
				busy.Add(1)
			case err == nil:
				ok.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	if !testutil.Within(5*time.Second, func() bool { return busy.Load()+handled.Load() >= sent-MaxInFlight-1 && busy.Load() > 0 }) {
		t.Fatalf("busy %d, handled %d of %d", busy.Load(), handled.Load(), sent)
	}
	close(release)
	wg.Wait()
	if handled.Load() > 2*MaxInFlight+1 || busy.Load()+ok.Load() != sent || ok.Load() != handled.Load() {
		t.Fatalf("handled %d, ok %d, busy %d of %d; want at most %d handled and the rest refused busy", handled.Load(), ok.Load(), busy.Load(), sent, 2*MaxInFlight+1)
	}
}
