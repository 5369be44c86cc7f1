package hooks

import (
	"testing"
	"time"

	"github.com/sotcomm/sotd/registry"
)

// A Claude Code heartbeat keeps the stamps its last read or write of its row
// left there, and while they are fresh its tool calls read no registry. Here
// the row's stamps are moved back behind its back, which a read would take for
// stale and stamp again: the calls within beatFresh of the kept stamps leave
// them so, and the first call past it reads the row and stamps it. A Codex
// call (it reads for the dialog it clears) and another session's call (a record
// of its own, none yet) read the row at once.
func TestPostToolReadsNoRegistryWhileItsStampsAreFresh(t *testing.T) {
	c := newClock()
	s := joined(t, c)
	post := func(input string, codex bool) {
		t.Helper()
		hook(t, s, func(r Run) int { return PostTool(r, codex) }, input)
	}
	back := stamp(c, -time.Hour)
	moveBack := func() {
		t.Helper()
		if err := registry.Mark(s.Home, "alice", registry.TouchWait, func(e *registry.Entry) error {
			e.StatusAt, e.LastSeen = back, back
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	stamped := func(when string, want string) {
		t.Helper()
		if e := entry(t, s); e.StatusAt != want || e.LastSeen != want {
			t.Fatalf("%s: status_at %s last_seen %s, want both %s", when, e.StatusAt, e.LastSeen, want)
		}
	}

	c.Add(beatFresh)
	post(postInput, false)
	kept := stamp(c, 0)
	stamped("the first call, past the join's stamps", kept)
	moveBack()
	for _, d := range []time.Duration{time.Second, beatFresh - 2*time.Second} {
		c.Add(d)
		post(postInput, false)
		stamped("a call within beatFresh of the kept stamps", back)
	}
	post(postInput, true)
	stamped("Codex's call", stamp(c, 0))
	moveBack()
	post(`{"session_id":"s-2","hook_event_name":"PostToolUse","tool_name":"Read"}`, false)
	stamped("another session's call", stamp(c, 0))
	moveBack()
	c.Add(time.Second)
	post(postInput, false)
	stamped("the call at beatFresh past the kept stamps", stamp(c, 0))
}
