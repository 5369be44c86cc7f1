package link

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/metrics"
	"github.com/sotcomm/sotd/wire"
)

// beatAndEcho is one beat from a to b and b's next beat back, on a true
// timeline from at: b's clock reads skew ahead of a's. It returns what a took
// from the echo.
func beatAndEcho(a, b *timing, at time.Time, skew, there, held, back time.Duration) (sampled bool, h Health) {
	sent := a.beat(at)
	b.heardBeat(sent, at.Add(there).Add(skew))
	echo := b.beat(at.Add(there + held).Add(skew))
	_, sampled, h = a.heardBeat(echo, at.Add(there+held+back))
	return sampled, h
}

func TestTimingOfOneExchange(t *testing.T) {
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	for _, tc := range []struct {
		name                    string
		skew, there, held, back time.Duration
		wantRTT, wantOffset     time.Duration
	}{
		{"same clock, symmetric", 0, 2 * ms, 0, 2 * ms, 4 * ms, 0},
		{"peer ahead", 42 * time.Second, 5 * ms, 3 * time.Second, 5 * ms, 10 * ms, 42 * time.Second},
		{"peer behind", -90 * time.Second, 1 * ms, 4 * time.Second, 1 * ms, 2 * ms, -90 * time.Second},
		// A one-sided delay is read as half of it in the offset: NTP's bound.
		{"slow way there", 7 * time.Second, 100 * ms, time.Second, 0, 100 * ms, 7*time.Second + 50*ms},
		{"slow way back", 7 * time.Second, 0, time.Second, 100 * ms, 100 * ms, 7*time.Second - 50*ms},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a, b timing
			sampled, h := beatAndEcho(&a, &b, base, tc.skew, tc.there, tc.held, tc.back)
			if !sampled || h.Samples != 1 {
				t.Fatalf("sampled %v, %d samples; want one", sampled, h.Samples)
			}
			if h.RTT != tc.wantRTT || h.MinRTT != tc.wantRTT || h.Offset != tc.wantOffset {
				t.Fatalf("rtt %s min %s offset %s; want rtt %s offset %s", h.RTT, h.MinRTT, h.Offset, tc.wantRTT, tc.wantOffset)
			}
			if err := h.Offset - tc.skew; err.Abs() > h.MinRTT/2 {
				t.Fatalf("offset %s is off the true %s by more than half the round trip %s", h.Offset, tc.skew, h.MinRTT)
			}
			if got := b.health(); got.Samples != 0 {
				t.Fatalf("b took %d samples from a beat that echoed none of its own", got.Samples)
			}
		})
	}
}

// TestOffsetComesFromTheFastestRecentSample: RTT follows the link, the offset
// follows the least-delayed exchange of the last TimingWindow.
func TestOffsetComesFromTheFastestRecentSample(t *testing.T) {
	ms := time.Millisecond
	skew := 5 * time.Second
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	var a, b timing
	step := func(there, back time.Duration) Health {
		t.Helper()
		at = at.Add(5 * time.Second)
		ok, h := beatAndEcho(&a, &b, at, skew, there, time.Second, back)
		if !ok {
			t.Fatal("an echo was not sampled")
		}
		return h
	}
	step(10*ms, 200*ms)
	fast := step(ms, ms)
	h := step(300*ms, 5*ms)
	if h.RTT != 305*ms || h.MinRTT != 2*ms || h.Offset != skew || h.Samples != 3 {
		t.Fatalf("after a fast sample and a slow one: %+v; want rtt 305ms, min 2ms, offset %s", h, skew)
	}
	if fast.At.IsZero() || !h.At.After(fast.At) {
		t.Fatalf("At %s then %s: want the later sample's time", fast.At, h.At)
	}
	// The fast sample ages out; the best of the rest (a 30 ms round trip,
	// 20 ms slower one way) gives the offset now.
	for range TimingWindow - 1 {
		step(25*ms, 5*ms)
	}
	h = step(40*ms, 40*ms)
	if h.MinRTT != 30*ms || h.Offset != skew+10*ms {
		t.Fatalf("after the fast sample left the window: %+v; want min 30ms, offset %s", h, skew+10*ms)
	}
}

func TestBeatsThatGiveNoSample(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		beat      func(a *timing) wire.LinkBeat // what the peer sends a
		wantFirst bool
	}{
		{"an older peer's bare beat", func(*timing) wire.LinkBeat { return wire.LinkBeat{} }, false},
		{"a first beat that echoes nothing", func(*timing) wire.LinkBeat { return wire.LinkBeat{Sent: 1} }, true},
		{"an echo of a beat never sent", func(a *timing) wire.LinkBeat {
			return wire.LinkBeat{Sent: 1, Echo: a.beat(now).Sent + 1, Held: 1}
		}, true},
		{"an echo of a beat too old to be kept", func(a *timing) wire.LinkBeat {
			old := a.beat(now)
			for i := range sentKept {
				a.beat(now.Add(time.Duration(i+1) * time.Second))
			}
			return wire.LinkBeat{Sent: 1, Echo: old.Sent}
		}, true},
		{"a negative hold", func(a *timing) wire.LinkBeat {
			return wire.LinkBeat{Sent: 1, Echo: a.beat(now).Sent, Held: -1}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a timing
			b := tc.beat(&a)
			first, sampled, h := a.heardBeat(b, now.Add(time.Second))
			if first != tc.wantFirst || sampled || h.Samples != 0 {
				t.Fatalf("first %v, sampled %v, %+v; want first %v and no sample", first, sampled, h, tc.wantFirst)
			}
			// The next timed beat is the first only when this one was bare.
			if first, _, _ := a.heardBeat(wire.LinkBeat{Sent: 2}, now.Add(2*time.Second)); first != (b.Sent == 0) {
				t.Fatalf("the next timed beat was taken for the first: %v, want %v", first, b.Sent == 0)
			}
		})
	}
}

// TestHealthOverARealLink links a guest whose clock runs 42 s ahead over each
// transport: both ends measure the round trip and the skew, each from its own
// side, and the metric carries it.
func TestHealthOverARealLink(t *testing.T) {
	const skew = 42 * time.Second
	// A beat's echo is taken while it names one of this end's last sentKept
	// beats: at 20 ms a round trip stretched past 80 ms by a loaded machine
	// gave no sample.
	const every = 100 * time.Millisecond
	srv := httptest.NewServer(metrics.Handler())
	defer srv.Close()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			var mu sync.Mutex
			var told []Health
			hubCfg := Config{Heartbeat: every, OnHealth: func(c *Conn, h Health) {
				mu.Lock()
				told = append(told, h)
				mu.Unlock()
			}}
			guestCfg := Config{Heartbeat: every, Now: func() time.Time { return time.Now().Add(skew) }}
			hubEnd, g, _ := pair(t, tr.dial, hubCfg, guestCfg)
			enough := func() bool { return hubEnd.Health().Samples >= 5 && g.Health().Samples >= 5 }
			if !testutil.Within(10*time.Second, enough) {
				t.Fatalf("samples after 10s: %d at the hub, %d at the guest", hubEnd.Health().Samples, g.Health().Samples)
			}
			for _, end := range []struct {
				name string
				h    Health
				want time.Duration
			}{
				{"hub", hubEnd.Health(), skew},
				{"guest", g.Health(), -skew},
			} {
				h := end.h
				if h.RTT <= 0 || h.RTT > time.Second || h.MinRTT > h.RTT {
					t.Errorf("%s: rtt %s, min %s; want a loopback round trip", end.name, h.RTT, h.MinRTT)
				}
				// Half the round trip bounds the error; the clock is read a
				// moment apart from the send, so give it a little more.
				if off := (h.Offset - end.want).Abs(); off > h.MinRTT/2+5*time.Millisecond {
					t.Errorf("%s: offset %s, want %s within %s", end.name, h.Offset, end.want, h.MinRTT/2)
				}
				t.Logf("%s over %s: rtt %s, min %s, offset %s after %d samples", end.name, tr.name, h.RTT, h.MinRTT, h.Offset, h.Samples)
			}
			mu.Lock()
			n := len(told)
			mu.Unlock()
			if n < 5 {
				t.Errorf("OnHealth was told of %d samples, want each of at least 5", n)
			}
			gauge := scrapeValue(t, srv.URL, `sotd_link_clock_offset_seconds{peer="guest"}`)
			if (time.Duration(gauge*float64(time.Second)) - skew).Abs() > 50*time.Millisecond {
				t.Errorf("the offset gauge for guest reads %vs, want about %s", gauge, skew)
			}
		})
	}
}

// TestTheFirstSampleDoesNotWaitAnInterval: with beats an hour apart, the
// beat each end sends at start and its answer still time the link.
func TestTheFirstSampleDoesNotWaitAnInterval(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			hubEnd, g, _ := pair(t, tr.dial, Config{Heartbeat: time.Hour}, Config{Heartbeat: time.Hour})
			if !testutil.Within(5*time.Second, func() bool { return hubEnd.Health().Samples > 0 && g.Health().Samples > 0 }) {
				t.Fatalf("samples: %d at the hub, %d at the guest; want the start's exchange timed", hubEnd.Health().Samples, g.Health().Samples)
			}
		})
	}
}

// TestBareBeatsKeepALinkUp: an older peer's heartbeats carry no payload, or
// one this end cannot read; each is still a beat.
func TestBareBeatsKeepALinkUp(t *testing.T) {
	t.Parallel()
	// The bare beats come ten times inside DeadAfter, so a scheduler's pause
	// under -race is not taken for silence.
	const every, dead = 50 * time.Millisecond, 500 * time.Millisecond
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			// The guest's own beats come an hour apart; only the bare ones
			// below keep the hub's heartbeat from judging it dead.
			hubEnd, g, _ := pair(t, tr.dial, Config{Heartbeat: every, DeadAfter: dead}, Config{Heartbeat: time.Hour})
			ctx, cancel := context.WithTimeout(context.Background(), 3*dead)
			defer cancel()
			for i := 0; ctx.Err() == nil; i++ {
				var payload any // none, as an older peer sends
				if i%2 == 1 {
					payload = "not a beat this end can read"
				}
				if err := g.SendEvent(wire.OpLinkHeartbeat, payload); err != nil {
					t.Fatal(err)
				}
				time.Sleep(every / 2)
			}
			if err := hubEnd.Err(); err != nil {
				t.Fatalf("bare beats did not keep the link up: %v", err)
			}
		})
	}
}

// scrapeValue reads one sample from /metrics.
func scrapeValue(t *testing.T, url, sample string) float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(body)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), sample+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("/metrics has no %s:\n%s", sample, body)
	return 0
}
