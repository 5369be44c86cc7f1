// Package registry is registry.json: who is reachable, how live they are and what
// they are doing. It is the source of truth for discovery, shared by every client of
// one comm home (the reference shell scripts, their daemon and sotd), so it promises
// what the protocol promises and nothing more clever:
//
//   - Merge-only. A write changes the keys it means to change; every field another
//     client wrote, in a row or at the top level, survives with its value. A fact
//     that is cleared loses its key.
//   - Three answers to a read: present, absent (it parsed; no such row) and
//     unreadable (missing, empty, not JSON, not exactly one document, no object
//     .agents). Unreadable is never absent, and a read that failed is retried by
//     path, because an NFS client can get ESTALE after another host's rename.
//   - One writer at a time, under the registry lock (package reglock), and a write
//     replaces the file only with a checked, flushed document renamed into place.
//     Anything short of that writes nothing and says so in the protocol's words.
//   - An unreadable registry is never rewritten, and Ensure never replaces,
//     truncates or repairs an existing one: rewriting an unreadable file is the
//     wipe. The fix is by hand (move it aside; the next command makes an empty one).
//   - One liveness rule (Live), one work-state reduction (Apply) and one handle
//     derivation (DeriveHandle), each the twin of the reference client's.
package registry

import (
	"errors"

	"github.com/sotcomm/sotd/registry/reglock"
)

// ProtocolVersion is stamped into a new registry and checked on join.
const ProtocolVersion = 1

// Lock deadlines the protocol names (reglock's, under the names callers of the
// registry use). SOT_LOCK_WAIT_SECS overrides the ruled one: pass Ruled(), not
// RuledWait, so the override applies.
const (
	RuledWait = reglock.Ruled // join, leave, spawn, despawn, status: 10 s
	TouchWait = reglock.Touch // best-effort last_seen touches of send and poll: 1 s
	BeatWait  = reglock.Beat  // the heartbeat: one try, which still reclaims a dead holder
)

// ErrUnreadable is wrapped by every unreadable answer, with the reason beside it:
// missing, empty, not JSON, not exactly one document, or no object .agents.
var ErrUnreadable = errors.New("the registry could not be read")

// ErrSkip returned by an Update func writes nothing and is not an error to the caller.
var ErrSkip = errors.New("nothing to write")
