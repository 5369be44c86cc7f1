//go:build agents && !windows

package integration

import (
	"testing"
	"time"
)

// TestWakeRealCodexRow runs codexRowWake, the wake of the real Codex in a
// tmux row, and holds each of its five figures to holdToBound.
func TestWakeRealCodexRow(t *testing.T) {
	t.Parallel()
	took := codexRowWake(t, realCodex(t, "the wake of a Codex row"))
	median, worst := spread(took)
	t.Logf("filing to the notice at the fake API, 5 batches: median %v, worst %v (all: %v)",
		median.Round(10*time.Millisecond), worst.Round(10*time.Millisecond), took)
	holdToBound(t, took)
}
