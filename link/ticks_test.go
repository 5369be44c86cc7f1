package link

import "testing"

// A link ticks only when the guest promised it and the hub took it, over every
// transport: a hub older than Ticks leaves it out of its answer, and a guest
// older than it never says it, so either end alone keeps today's directory.
func TestALinkTicksOnlyWhenBothEndsAgree(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		for _, tc := range []struct {
			name       string
			hub, guest bool
		}{{"both", true, true}, {"an older guest", true, false}, {"an older hub", false, true}} {
			t.Run(tr.name+"/"+tc.name, func(t *testing.T) {
				hubEnd, g, _ := pair(t, tr.dial, Config{Ticks: tc.hub}, Config{Ticks: tc.guest})
				want := tc.hub && tc.guest
				if hubEnd.Ticks() != want || g.Ticks() != want {
					t.Fatalf("ticks at the hub %v, at the guest %v; want %v at both", hubEnd.Ticks(), g.Ticks(), want)
				}
			})
		}
	}
}
