package link

import (
	"errors"
	"testing"
	"time"
)

// deadSlack is how late past DeadAfter a silent peer may be found dead here: a
// timer's wake and the scheduler under -race on a busy machine, not a beat.
const deadSlack = 150 * time.Millisecond

// TestTheProductionLivenessAgrees pins the rule the defaults keep: a peer is
// dead 15 s after its last word at the latest, by the heartbeat's judge and by
// QUIC's idle timer alike, and a single lost beat is not death.
func TestTheProductionLivenessAgrees(t *testing.T) {
	cfg := Config{}.withDefaults()
	q := quicConfig(cfg)
	switch {
	case cfg.DeadAfter != DeadAfter || DeadAfter > 15*time.Second:
		t.Errorf("a link is dead after %s (DeadAfter %s); the package doc promises 15 s at the latest", cfg.DeadAfter, DeadAfter)
	case q.MaxIdleTimeout > cfg.DeadAfter:
		t.Errorf("QUIC's idle timeout %s outlasts DeadAfter %s: a silent QUIC peer would be found late", q.MaxIdleTimeout, cfg.DeadAfter)
	case q.KeepAlivePeriod <= 0 || q.KeepAlivePeriod >= q.MaxIdleTimeout:
		t.Errorf("QUIC keep-alive every %s with an idle timeout of %s: want pings inside it", q.KeepAlivePeriod, q.MaxIdleTimeout)
	case cfg.DeadAfter < 2*cfg.Heartbeat:
		t.Errorf("dead after %s with beats every %s: one late beat would end a link", cfg.DeadAfter, cfg.Heartbeat)
	}
}

// TestASilentPeerIsDeadAtDeadAfter links to a hub that beats once, at the
// start, and never again while its transport stays up (QUIC still acks, a
// WebSocket still pongs): the guest's heartbeat judges it dead DeadAfter after
// that beat, not at its next tick after.
func TestASilentPeerIsDeadAtDeadAfter(t *testing.T) {
	t.Parallel()
	const dead = 400 * time.Millisecond
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			// The guest's own beats are a second apart, so a judge on the
			// beat's tick would find the hub dead a whole beat late.
			_, g, _ := pair(t, tr.dial, Config{Heartbeat: time.Hour}, Config{Heartbeat: time.Second, DeadAfter: dead})
			up := time.Now()
			select {
			case <-g.Done():
			case <-time.After(10 * dead):
				t.Fatalf("the guest's link is still up %s after its hub fell silent (dead after %s)", 10*dead, dead)
			}
			took := time.Since(up)
			if !errors.Is(g.Err(), ErrClosed) || !contains(g.Err().Error(), "nothing from hub for") {
				t.Fatalf("the link ended with %v; want the heartbeat's judgement of a silent hub", g.Err())
			}
			if took > dead+deadSlack {
				t.Fatalf("the silent hub was found dead %s after the link came up; want %s after its last beat, within %s", took.Round(time.Millisecond), dead, deadSlack)
			}
			t.Logf("dead after %s (DeadAfter %s)", took.Round(time.Millisecond), dead)
		})
	}
}
