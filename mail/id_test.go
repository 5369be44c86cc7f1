package mail

import (
	"testing"
	"time"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
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

func TestShortIDAndNamesID(t *testing.T) {
	const id = "01KBQ3Z5X8M2N4P6R7S9T0VWXY"
	if got := ShortID(id); got != "S9T0VWXY" {
		t.Fatalf("ShortID(%s) = %q, want its last 8 characters", id, got)
	}
	if got := ShortID("guest-7"); got != "guest-7" {
		t.Fatalf("ShortID of a short id = %q, want it whole", got)
	}
	for _, tc := range []struct {
		ref, id string
		want    bool
	}{
		{"S9T0VWXY", id, true},
		{"s9t0vwxy", id, true},
		{id, id, true},
		{"01kbq3z5x8m2n4p6r7s9t0vwxy", id, true},
		{"9T0VWXY", id, false}, // a suffix shorter than the short id names nothing
		{"S9T0VWXZ", id, false},
		{"S9T0VWXY", "", false},
		{"guest-7", "guest-7", true},
	} {
		if got := NamesID(tc.ref, tc.id); got != tc.want {
			t.Errorf("NamesID(%q, %q) = %v, want %v", tc.ref, tc.id, got, tc.want)
		}
	}
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{id, true},
		{"01kbq3z5x8m2n4p6r7s9t0vwxy", true},
		{newID(time.Now()), true},
		{"S9T0VWXY", false},
		{"01KBQ3Z5X8M2N4P6R7S9T0VWXU", false}, // U is not a Crockford digit
		{"01KBQ3Z5X8M2N4P6R7S9T0VWX", false},
	} {
		if got := IsID(tc.s); got != tc.want {
			t.Errorf("IsID(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
