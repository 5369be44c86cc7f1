package mail

import (
	"testing"
	"time"
)

func TestNewIDSortsByTimeAndIsUnique(t *testing.T) {
	seen := map[string]bool{}
	prev := ""
	base := time.UnixMilli(1_700_000_000_000)
	for i := 0; i < 5000; i++ {
		// Many ids share a millisecond; some steps go back in time (clock jumps).
		now := base.Add(time.Duration(i/7) * time.Millisecond)
		if i%500 == 0 {
			now = now.Add(-time.Second)
		}
		id := newID(now)
		if len(id) != 26 {
			t.Fatalf("id %q is %d characters, want 26", id, len(id))
		}
		if seen[id] {
			t.Fatalf("id %q made twice", id)
		}
		seen[id] = true
		if id <= prev {
			t.Fatalf("id %q does not sort after %q", id, prev)
		}
		prev = id
	}
}
