package link

import (
	"sync"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// TimingWindow is how many recent samples Health's MinRTT and Offset are
// taken from: 40 s of heartbeats at the default interval.
const TimingWindow = 8

// sentKept is how many of this end's own beats an echo may name: the peer
// echoes the last beat it heard, which is this end's last or, when the two
// crossed on the way, the one before.
const sentKept = 4

// Health is a link's timing, measured NTP-style on its heartbeats: a beat
// that echoes one of this end's gives one sample of the round trip and of the
// peer's clock offset.
//
// RTT is the last sample, as the link is now. Offset comes from the fastest
// sample of the last TimingWindow instead (NTP's clock filter): an offset's
// error is at most half its round trip, and a round trip stretched by a queue
// or a pause stretches that bound with it, so the fastest is the truest.
type Health struct {
	RTT     time.Duration // the last sample's round trip, less the time the beat was held at the peer
	MinRTT  time.Duration // the fastest round trip of the last TimingWindow samples
	Offset  time.Duration // the peer's clock minus this box's; wrong by at most MinRTT/2
	Samples int           // samples since the link came up; 0: none yet, or a peer that sends no timing
	At      time.Time     // when the last sample was taken, by Config.Now
}

// sample is one exchange's result.
type sample struct{ rtt, offset time.Duration }

// timing keeps one link's exchange: this end's recent beats, the peer's last
// one, and the samples taken.
type timing struct {
	mu     sync.Mutex
	sent   [sentKept]time.Time // this end's last beats, as its clock read them
	next   int                 // where the next beat goes in sent
	heard  time.Time           // when the peer's last timed beat came; zero before one
	echo   int64               // that beat's Sent
	recent [TimingWindow]sample
	h      Health
}

// beat records a beat sent at now and returns its payload.
func (t *timing) beat(now time.Time) wire.LinkBeat {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sent[t.next] = now
	t.next = (t.next + 1) % sentKept
	b := wire.LinkBeat{Sent: now.UnixNano()}
	if !t.heard.IsZero() {
		b.Echo, b.Held = t.echo, int64(now.Sub(t.heard))
	}
	return b
}

// heardBeat takes the peer's beat, heard at now. It reports whether the beat
// was the peer's first timed one (to be answered at once, so the first sample
// does not wait a whole interval) and, when it echoed one of this end's beats,
// the health with its sample.
func (t *timing) heardBeat(b wire.LinkBeat, now time.Time) (first, sampled bool, h Health) {
	if b.Sent == 0 {
		return false, false, Health{} // an older peer's bare beat
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	first = t.heard.IsZero()
	t.heard, t.echo = now, b.Sent
	// A clock before 1970 or a wait below zero is no clock's; either would
	// also carry the arithmetic below past int64.
	if b.Echo == 0 || b.Held < 0 || b.Sent < 0 {
		return first, false, t.h
	}
	var t1 time.Time
	for _, s := range t.sent {
		if !s.IsZero() && s.UnixNano() == b.Echo {
			t1 = s
		}
	}
	if t1.IsZero() {
		return first, false, t.h // an echo of a beat too old, or never sent
	}
	held := time.Duration(b.Held)
	away := now.Sub(t1)
	if held > away {
		// The peer cannot have held the beat longer than it was away; a round
		// trip of zero would stand as the fastest, and its offset as the truest.
		return first, false, t.h
	}
	// t1 and now are this clock's, t3 = b.Sent and t2 = t3 - held the peer's.
	// The round trip is measured on this clock alone (monotonically where it
	// can be). NTP's offset, ((t2 - t1) + (t3 - now)) / 2, is written as
	// (t3 - now) + rtt/2: the same, and no sum of two clocks' distances can
	// overflow (t3 and now are both after 1970).
	rtt := away - held
	offset := time.Duration(b.Sent-now.UnixNano()) + rtt/2
	t.recent[t.h.Samples%TimingWindow] = sample{rtt: rtt, offset: offset}
	t.h.Samples++
	t.h.RTT, t.h.At = rtt, now
	best := t.recent[0]
	for _, s := range t.recent[:min(t.h.Samples, TimingWindow)] {
		if s.rtt < best.rtt {
			best = s
		}
	}
	t.h.MinRTT, t.h.Offset = best.rtt, best.offset
	return first, true, t.h
}

func (t *timing) health() Health {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.h
}
