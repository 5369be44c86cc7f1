package viewdiff

import (
	"slices"
	"testing"

	"github.com/sotcomm/sotd/wire"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
)

// Two rows whose exit codes are equal behind different pointers read the
// same; a nil code and a zero one do not.
func TestSameViewRowComparesExitCodesByValue(t *testing.T) {
	zero, zero2, one := 0, 0, 1
	if !SameViewRow(wire.ViewRow{ID: "w1", ExitCode: &zero}, wire.ViewRow{ID: "w1", ExitCode: &zero2}) {
		t.Error("rows exiting 0 read differently")
	}
	if SameViewRow(wire.ViewRow{ID: "w1"}, wire.ViewRow{ID: "w1", ExitCode: &zero}) || SameViewRow(wire.ViewRow{ID: "w1", ExitCode: &one}, wire.ViewRow{ID: "w1", ExitCode: &zero}) {
		t.Error("rows with different exits read the same")
	}
}

// Changes names what came or changed in key order and the keys gone.
func TestChanges(t *testing.T) {
	same := func(a, b int) bool { return a == b }
	changed, gone := Changes(map[string]int{"a": 1, "b": 2, "c": 3}, map[string]int{"d": 4, "b": 5, "c": 3}, same)
	if !slices.Equal(changed, []int{5, 4}) || !slices.Equal(gone, []string{"a"}) {
		t.Fatalf("Changes = %v, %v; want [5 4], [a]", changed, gone)
	}
}
