package machine

import (
	"testing"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
)

// A known fact is read once per process; an unknown one is read again at the
// next ask, so a fact that appears later (a machine id written after boot) is
// seen.
func TestMemoKeepsOnlyAKnownAnswer(t *testing.T) {
	answers := []string{Unknown, "", "id-1", "id-2"}
	reads := 0
	get := memo(func() string { reads++; return answers[reads-1] })
	for i, want := range []string{Unknown, "", "id-1", "id-1", "id-1"} {
		if got := get(); got != want {
			t.Fatalf("ask %d = %q, want %q", i+1, got, want)
		}
	}
	if reads != 3 {
		t.Fatalf("%d reads for two unknown answers and one known, want 3", reads)
	}
}
