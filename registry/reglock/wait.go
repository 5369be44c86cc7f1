package reglock

import (
	"time"

	"github.com/sotcomm/sotd/home"
)

// EnvWait overrides the ruled deadline, as the protocol's scripts read it.
const EnvWait = "SOT_LOCK_WAIT_SECS"

// The protocol's bounds.
const (
	Ruled  = 10 * time.Second      // join, leave, spawn, despawn, status, workspace destroy
	Touch  = 1 * time.Second       // best-effort last_seen touches, the unread clear
	Beat   = time.Duration(0)      // the heartbeat: one try, which still reclaims
	Poll   = 50 * time.Millisecond // how often a wait tries again
	Settle = 1 * time.Second       // a reclaim's wait for a dead holder's late operations
)

// RuledDeadline is the ruled wait: $SOT_LOCK_WAIT_SECS, else Ruled.
func RuledDeadline() time.Duration { return home.EnvSeconds(EnvWait, Ruled) }
