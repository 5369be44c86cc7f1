package ctxsleep

import (
	"context"
	"time"
)

// Every is a service's body that runs do once each period until ctx ends,
// then returns nil.
func Every(ctx context.Context, period time.Duration, do func()) error {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		do()
	}
}
