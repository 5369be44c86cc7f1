package events

import (
	"context"
	"errors"
	"sync"
)

// Kinds the bus itself emits.
const (
	KindSnapshot = "snapshot"
	KindResync   = "stream_resync"
)

// ErrClosed is returned by Next once the subscription or its bus is closed.
var ErrClosed = errors.New("event subscription closed")

// Event is one entry of the feed. Seq is the number of the last event published
// before it is true: for a live event its own number, for a snapshot the number
// it is consistent with (the next live event is Seq+1).
type Event struct {
	Seq     uint64 `json:"seq"`
	Kind    string `json:"kind"`
	Payload any    `json:"payload,omitempty"`
}

// Bus fans events out to subscribers. Publish never blocks on a subscriber.
type Bus struct {
	// mu orders publishes against snapshots: a snapshot taken under it is
	// consistent with exactly the events numbered up to seq.
	mu     sync.Mutex
	seq    uint64
	subs   map[*Sub]struct{}
	closed bool
}

// New returns an empty, open bus.
func New() *Bus { return &Bus{subs: make(map[*Sub]struct{})} }

// Publish stamps the next sequence number on an event and offers it to every
// subscriber, returning the number. A subscriber whose buffer is full is marked
// lagged instead of being waited for. On a closed bus it returns 0.
func (b *Bus) Publish(kind string, payload any) uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0
	}
	b.seq++
	ev := Event{Seq: b.seq, Kind: kind, Payload: payload}
	for s := range b.subs {
		if s.lagged {
			continue
		}
		select {
		case s.ch <- ev:
		default:
			s.lagged = true
		}
	}
	return b.seq
}

// Subscribe starts a subscription whose first event is snapshot's result, then
// every event published after it, holding at most buffer of them (at least 1)
// while the subscriber is away. snapshot runs with the bus held, so it must not
// publish; it runs again after every resync.
func (b *Bus) Subscribe(snapshot func() any, buffer int) *Sub {
	s := &Sub{bus: b, snapshot: snapshot, ch: make(chan Event, max(buffer, 1)), done: make(chan struct{})}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		s.close()
		return s
	}
	b.subs[s] = struct{}{}
	s.pending = []Event{s.snapshotLocked()}
	return s
}

// Close ends every subscription; later publishes are dropped.
func (b *Bus) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for s := range b.subs {
		delete(b.subs, s)
		s.close()
	}
}

// Sub is one subscription. Next is for one reader; Close may be called from
// any goroutine, any number of times.
type Sub struct {
	bus      *Bus
	snapshot func() any
	ch       chan Event
	pending  []Event // what Next hands out before the channel; only Next touches it after Subscribe
	lagged   bool    // guarded by bus.mu
	done     chan struct{}
	once     sync.Once
}

// snapshotLocked is a snapshot event at the bus's current number; bus.mu is held.
func (s *Sub) snapshotLocked() Event {
	return Event{Seq: s.bus.seq, Kind: KindSnapshot, Payload: s.snapshot()}
}

// Next returns the next event, waiting for one until ctx ends or the
// subscription closes. After falling behind it returns a stream_resync event
// and then a fresh snapshot; what was buffered before the gap is dropped,
// because the snapshot supersedes it.
func (s *Sub) Next(ctx context.Context) (Event, error) {
	if len(s.pending) > 0 {
		ev := s.pending[0]
		s.pending = s.pending[1:]
		return ev, nil
	}
	if ev, ok := s.resync(); ok {
		return ev, nil
	}
	// A subscriber marked lagged had a full channel, and only Next drains it,
	// so the wait below ends at once if a lag happens after the check above.
	select {
	case ev := <-s.ch:
		return ev, nil
	case <-s.done:
		return Event{}, ErrClosed
	case <-ctx.Done():
		return Event{}, ctx.Err()
	}
}

// resync, when the subscriber lagged, empties its buffer, takes a fresh
// snapshot and returns the resync event with the snapshot queued behind it.
func (s *Sub) resync() (Event, bool) {
	b := s.bus
	b.mu.Lock()
	defer b.mu.Unlock()
	if !s.lagged {
		return Event{}, false
	}
	for len(s.ch) > 0 {
		<-s.ch
	}
	s.lagged = false
	snap := s.snapshotLocked()
	s.pending = []Event{snap}
	return Event{Seq: snap.Seq, Kind: KindResync}, true
}

// Close ends the subscription and releases its place on the bus.
func (s *Sub) Close() {
	b := s.bus
	b.mu.Lock()
	delete(b.subs, s)
	b.mu.Unlock()
	s.close()
}

func (s *Sub) close() { s.once.Do(func() { close(s.done) }) }
