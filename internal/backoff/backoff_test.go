package backoff

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"
)

func TestTheSchedule(t *testing.T) {
	s := time.Second
	p := Policy{First: 2 * s, Max: 60 * s, ResetAfter: 60 * s}
	down := errors.New("down")
	for _, tc := range []struct {
		name string
		ran  []time.Duration // how long each run lasted before it failed
		want []time.Duration // the waits after each
	}{
		{"failures double to the cap", []time.Duration{0, 0, 0, 0, 0, 0, 0, 0},
			[]time.Duration{2 * s, 4 * s, 8 * s, 16 * s, 32 * s, 60 * s, 60 * s, 60 * s}},
		{"a run of ResetAfter resets it", []time.Duration{0, 0, 0, 0, 60 * s, 0},
			[]time.Duration{2 * s, 4 * s, 8 * s, 16 * s, 2 * s, 4 * s}},
		{"a shorter run does not", []time.Duration{0, 0, 59 * s, 0},
			[]time.Duration{2 * s, 4 * s, 8 * s, 16 * s}},
		{"a long first run starts at First", []time.Duration{10 * time.Minute},
			[]time.Duration{2 * s}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := schedule{Policy: p}
			for i, ran := range tc.ran {
				if got, _ := sc.next(ran, down); got != tc.want[i] {
					t.Fatalf("wait %d after a run of %s = %s, want %s", i, ran, got, tc.want[i])
				}
			}
		})
	}
}

// TestTheDefaultJitterIsSpread runs a failing service under a Loop with the
// default randomness: every wait is its schedule's plus [0, Jitter), and the
// waits do spread over that range.
func TestTheDefaultJitterIsSpread(t *testing.T) {
	p := Policy{First: time.Second, Max: time.Second, ResetAfter: time.Hour, Jitter: time.Second}
	var waits []time.Duration
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	Loop{Policy: p, Log: slog.New(slog.DiscardHandler),
		Sleep: func(ctx context.Context, d time.Duration) error {
			if waits = append(waits, d); len(waits) == 2000 {
				cancel()
			}
			return ctx.Err()
		},
	}.Run(ctx, func(context.Context) error { return errors.New("down") })
	lo, hi := waits[0], waits[0]
	for _, w := range waits {
		if w < p.First || w >= p.First+p.Jitter {
			t.Fatalf("wait %s outside [%s, %s)", w, p.First, p.First+p.Jitter)
		}
		lo, hi = min(lo, w), max(hi, w)
	}
	if hi-lo < p.Jitter/2 {
		t.Fatalf("2000 waits within %s..%s: not spread over the jitter", lo, hi)
	}
}
