// Package ctxsleep holds the one way long-running services wait: a sleep that ends
// early when its context does.
package ctxsleep

import (
	"context"
	"time"
)

// Sleep waits d, or less when ctx ends first (then it returns ctx's error).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
