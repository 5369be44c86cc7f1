// Package registry is registry.json: who is reachable and how live. (STUB: the
// registry helper replaces this file; signatures are the contract.)
package registry

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/sotcomm/sotd/home"
)

// ProtocolVersion is stamped into a new registry and checked on join.
const ProtocolVersion = 1

// Lock deadlines the protocol names (SOT_LOCK_WAIT_SECS overrides Ruled).
const (
	RuledWait = 10 * time.Second // join, leave, spawn, despawn, status
	TouchWait = 1 * time.Second  // best-effort last_seen touches of send and poll
	BeatWait  = 0                // the heartbeat: one try
)

// ErrUnreadable: missing, empty, not JSON, not exactly one document, or no object .agents.
var ErrUnreadable = errors.New("the registry could not be read")

// ErrSkip returned by an Update func writes nothing and is not an error to the caller.
var ErrSkip = errors.New("nothing to write")

// Entry is one agent. Fields sotd does not know survive in Extra.
type Entry struct {
	Host        string
	WorkspaceID string
	Repo        string
	Root        string
	Expertise   []string
	Status      string
	Joined      string
	LastSeen    string
	State       string
	Summary     string
	StatusAt    string
	Floor       string
	Dialog      string
	Question    string
	Waiting     string
	Done        bool
	Note        string
	StopAt      string
	Extra       map[string]json.RawMessage
}

// Doc is the whole registry. Top-level fields sotd does not know survive in Extra.
type Doc struct {
	ProtocolVersion int
	Agents          map[string]*Entry
	Extra           map[string]json.RawMessage
}

// Read returns the registry as it is on disk now (fresh read, ESTALE retry).
func Read(h home.Home) (*Doc, error) { return nil, errors.New("stub") }

// Ensure publishes an empty registry when there is none, never replacing one.
func Ensure(h home.Home) error { return errors.New("stub") }

// Update takes the registry lock (bounded by wait), reads fresh, applies fn and
// replaces the file (tmp, validate, fsync, rename). fn returning ErrSkip writes nothing.
func Update(h home.Home, wait time.Duration, fn func(*Doc) error) error { return errors.New("stub") }

// Live is the one liveness rule.
func Live(lastSeen string, now time.Time) bool { return false }

// Stamp formats t as the registry's YYYY-MM-DDTHH:MM:SSZ.
func Stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }
