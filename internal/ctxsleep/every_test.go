package ctxsleep

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
)

// Every runs its body each period and returns nil once its context ends.
func TestEveryRunsUntilItsContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int32
	done := make(chan error, 1)
	go func() { done <- Every(ctx, time.Millisecond, func() { n.Add(1) }) }()
	testutil.Eventually(t, 10*time.Second, "Every to run its body 3 times", func() bool { return n.Load() >= 3 })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Every = %v after its context ended, want nil", err)
	}
}
