package backoff

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
)

func TestTheSchedule(t *testing.T) {
	s := time.Second
	p := Policy{First: 2 * s, Max: 60 * s, ResetAfter: 60 * s}
	down := errors.New("down")
	for _, tc := range []struct {
		name    string
		ran     []time.Duration // how long each run lasted before it failed
		healthy map[int]bool    // runs that said they had worked
		want    []time.Duration // the waits after each
	}{
		{"failures double to the cap", []time.Duration{0, 0, 0, 0, 0, 0, 0, 0}, nil,
			[]time.Duration{2 * s, 4 * s, 8 * s, 16 * s, 32 * s, 60 * s, 60 * s, 60 * s}},
		{"a run of ResetAfter resets it", []time.Duration{0, 0, 0, 0, 60 * s, 0}, nil,
			[]time.Duration{2 * s, 4 * s, 8 * s, 16 * s, 2 * s, 4 * s}},
		{"a shorter run does not", []time.Duration{0, 0, 59 * s, 0}, nil,
			[]time.Duration{2 * s, 4 * s, 8 * s, 16 * s}},
		{"a long first run starts at First", []time.Duration{10 * time.Minute}, nil,
			[]time.Duration{2 * s}},
		// Three short links in a row, each after failed dials: each link
		// that came up starts the schedule again.
		{"a run that was healthy resets it, however short", []time.Duration{0, 0, 5 * s, 0, 0, 5 * s, 5 * s, 5 * s, 0},
			map[int]bool{2: true, 5: true, 6: true, 7: true},
			[]time.Duration{2 * s, 4 * s, 2 * s, 4 * s, 8 * s, 2 * s, 2 * s, 2 * s, 4 * s}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := schedule{Policy: p}
			for i, ran := range tc.ran {
				err := down
				if tc.healthy[i] {
					err = Healthy(down)
				}
				if got, _ := sc.next(ran, err); got != tc.want[i] {
					t.Fatalf("wait %d after a run of %s = %s, want %s", i, ran, got, tc.want[i])
				}
			}
		})
	}
}

// TestTheDefaultJitterIsSpread runs a failing service under a Loop with the
// default randomness: every wait is drawn from the upper half of its
// schedule's (equal jitter), and the waits do spread over that half.
func TestTheDefaultJitterIsSpread(t *testing.T) {
	p := Policy{First: 2 * time.Second, Max: 2 * time.Second, Jitter: true}
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
		if w < p.First/2 || w > p.First {
			t.Fatalf("wait %s outside [%s, %s]", w, p.First/2, p.First)
		}
		lo, hi = min(lo, w), max(hi, w)
	}
	if hi-lo < p.First/4 {
		t.Fatalf("2000 waits within %s..%s: not spread over [%s, %s]", lo, hi, p.First/2, p.First)
	}
}
