//go:build !windows

package rows_test

import (
	"testing"

	"github.com/sotcomm/sotd/rows"
)

// Close ends every PTY row: nothing of them outlives the daemon. goleak, in
// TestMain, checks that their goroutines went too.
func TestPTYCloseEndsRows(t *testing.T) {
	b := rows.NewPTY(rows.Options{})
	var pids []int
	for range 2 {
		info, _ := startAtPrompt(t, b)
		pids = append(pids, info.Pid)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if !groupGone(pid) {
			t.Errorf("process group %d outlived Close", pid)
		}
	}
	spec, _ := agentSpec(t)
	if _, err := b.Start(spec); err == nil {
		t.Error("Start after Close succeeded")
	}
	if found, err := b.Discover(); err != nil || len(found) != 0 {
		t.Errorf("Discover on the PTY backend = %v, %v; PTY rows never survive", found, err)
	}
}
