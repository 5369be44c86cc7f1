package link

import (
	"testing"
	"time"
)

// TestHeartbeatFromTheEnvironment: SOT_LINK_HEARTBEAT_SECS sets the beat and
// with it the dead-link judge of a Config that leaves them zero, and nothing
// else: a Config's own beat wins, and a value that is no positive number keeps
// the production default.
func TestHeartbeatFromTheEnvironment(t *testing.T) {
	for _, c := range []struct {
		env        string
		set        time.Duration
		beat, dead time.Duration
	}{
		{"", 0, HeartbeatEvery, DeadAfter},
		{"2", 0, 2 * time.Second, 6 * time.Second},
		{"0.5", 0, 500 * time.Millisecond, 1500 * time.Millisecond},
		{"2", 40 * time.Millisecond, 40 * time.Millisecond, 120 * time.Millisecond},
		{"0", 0, HeartbeatEvery, DeadAfter},
		{"soon", 0, HeartbeatEvery, DeadAfter},
	} {
		t.Setenv(EnvHeartbeat, c.env)
		got := Config{Heartbeat: c.set}.withDefaults()
		if got.Heartbeat != c.beat || got.DeadAfter != c.dead {
			t.Errorf("%s=%q, Heartbeat %s: beat %s, dead after %s; want %s, %s", EnvHeartbeat, c.env, c.set, got.Heartbeat, got.DeadAfter, c.beat, c.dead)
		}
	}
}
