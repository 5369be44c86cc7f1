//go:build !linux

package filer

import "context"

// WatchInboxes watches nothing on this OS: a client's own append waits for the
// wake's tick. It returns when ctx ends.
func WatchInboxes(ctx context.Context, dir string, kick func(handle string)) error {
	<-ctx.Done()
	return nil
}
