//go:build !windows

package service

import (
	"context"
	"os/signal"
	"syscall"
)

// Context is `sotd serve`'s lifetime: it ends on SIGTERM, which systemd and
// launchd stop a job with, or SIGINT. stop releases the signals; call it when
// serve is done.
func Context(parent context.Context) (ctx context.Context, stop func()) {
	return signal.NotifyContext(parent, syscall.SIGTERM, syscall.SIGINT)
}
