package events

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// counter is a snapshot source: the number of events it has seen applied.
type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) snap() any { c.mu.Lock(); defer c.mu.Unlock(); return c.n }

func next(t *testing.T, s *Sub) Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ev, err := s.Next(ctx)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return ev
}

func TestSubscribeStartsWithSnapshotThenLive(t *testing.T) {
	b := New()
	defer b.Close()
	b.Publish("before", 1)
	b.Publish("before", 2)
	s := b.Subscribe(func() any { return "state@2" }, 8)
	defer s.Close()
	b.Publish("after", 3)

	want := []Event{
		{Seq: 2, Kind: KindSnapshot, Payload: "state@2"},
		{Seq: 3, Kind: "after", Payload: 3},
	}
	for i, w := range want {
		if got := next(t, s); got != w {
			t.Fatalf("event %d = %+v, want %+v", i, got, w)
		}
	}
}

// A subscriber that falls behind gets exactly one resync and a fresh snapshot
// consistent with the last number, then the live events after it: no gap that
// is not announced, and no more buffered than it asked for.
func TestSlowSubscriberGetsOneResyncAndSnapshot(t *testing.T) {
	tests := []struct {
		name    string
		buffer  int
		publish int
	}{
		{"one over", 4, 5},
		{"far behind", 4, 1000},
		{"buffer of one", 1, 3},
		{"zero buffer means one", 0, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := New()
			defer b.Close()
			var c counter
			s := b.Subscribe(c.snap, tc.buffer)
			defer s.Close()
			if ev := next(t, s); ev.Kind != KindSnapshot || ev.Seq != 0 {
				t.Fatalf("first event %+v, want snapshot at 0", ev)
			}
			for i := 0; i < tc.publish; i++ {
				c.mu.Lock()
				c.n++
				c.mu.Unlock()
				b.Publish("tick", i)
			}
			if got := len(s.ch); got > max(tc.buffer, 1) {
				t.Fatalf("%d events buffered, over the bound %d", got, tc.buffer)
			}
			if ev := next(t, s); ev.Kind != KindResync || ev.Seq != uint64(tc.publish) {
				t.Fatalf("after falling behind got %+v, want stream_resync at %d", ev, tc.publish)
			}
			if ev := next(t, s); ev.Kind != KindSnapshot || ev.Seq != uint64(tc.publish) || ev.Payload != tc.publish {
				t.Fatalf("after resync got %+v, want a snapshot at %d holding %d", ev, tc.publish, tc.publish)
			}
			b.Publish("live", "x")
			if ev := next(t, s); ev.Kind != "live" || ev.Seq != uint64(tc.publish)+1 {
				t.Fatalf("after the snapshot got %+v, want the next live event", ev)
			}
		})
	}
}

// Fast subscribers see every event, in order, while a stalled one beside them
// does not slow the publisher down.
func TestFastSubscribersSeeEveryEventInOrder(t *testing.T) {
	const n, subs = 5000, 3
	b := New()
	defer b.Close()
	stalled := b.Subscribe(func() any { return nil }, 2)
	defer stalled.Close()

	var wg sync.WaitGroup
	errs := make(chan error, subs)
	ready := make(chan struct{}, subs)
	for range subs {
		s := b.Subscribe(func() any { return nil }, n)
		wg.Go(func() {
			defer s.Close()
			ready <- struct{}{}
			ctx := context.Background()
			if ev, err := s.Next(ctx); err != nil || ev.Kind != KindSnapshot {
				errs <- errors.New("no snapshot first")
				return
			}
			for want := uint64(1); want <= n; want++ {
				ev, err := s.Next(ctx)
				if err != nil {
					errs <- err
					return
				}
				if ev.Seq != want || ev.Payload != int(want) {
					errs <- errors.New("event out of order or missing")
					return
				}
			}
		})
	}
	for range subs {
		<-ready
	}
	for i := 1; i <= n; i++ {
		b.Publish("n", i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCloseEndsNext(t *testing.T) {
	tests := []struct {
		name  string
		close func(*Bus, *Sub)
	}{
		{"sub closed", func(_ *Bus, s *Sub) { s.Close() }},
		{"bus closed", func(b *Bus, _ *Sub) { b.Close() }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := New()
			defer b.Close()
			s := b.Subscribe(func() any { return nil }, 1)
			next(t, s)
			errc := make(chan error, 1)
			go func() { _, err := s.Next(context.Background()); errc <- err }()
			tc.close(b, s)
			select {
			case err := <-errc:
				if !errors.Is(err, ErrClosed) {
					t.Fatalf("Next after close = %v, want ErrClosed", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Next still waiting after close")
			}
		})
	}
	b := New()
	b.Close()
	if seq := b.Publish("late", nil); seq != 0 {
		t.Fatalf("publish on a closed bus numbered %d", seq)
	}
	s := b.Subscribe(func() any { return nil }, 1)
	if _, err := s.Next(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("subscribe on a closed bus: Next = %v, want ErrClosed", err)
	}
}

// Publishers, subscribers and closers at once, under -race: every subscriber
// sees a gapless sequence, where a gap is allowed only as resync + snapshot.
func TestConcurrentPublishSubscribeClose(t *testing.T) {
	b := New()
	var pubs, readers sync.WaitGroup
	for p := range 4 {
		pubs.Go(func() {
			for i := 0; i < 2000; i++ {
				b.Publish("p", p)
			}
		})
	}
	errs := make(chan error, 64)
	for r := range 16 {
		readers.Go(func() {
			s := b.Subscribe(func() any { return nil }, 1+r%5)
			defer s.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var last uint64
			resynced := false
			for i := 0; ; i++ {
				if r%3 == 0 && i == 50 {
					return // an early leaver
				}
				ev, err := s.Next(ctx)
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil {
					errs <- err
					return
				}
				switch {
				case ev.Kind == KindResync:
					resynced = true
				case ev.Kind == KindSnapshot:
					if i > 0 && !resynced {
						errs <- errors.New("a snapshot without a resync before it")
						return
					}
					resynced = false
					last = ev.Seq
				case ev.Seq != last+1:
					errs <- errors.New("a silent gap in the sequence")
					return
				default:
					last = ev.Seq
				}
			}
		})
	}
	pubs.Wait()
	b.Close()
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
