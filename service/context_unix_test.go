//go:build !windows

package service

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// TestContextEndsOnSIGTERM: the signal systemd and launchd stop a job with
// ends serve's context.
func TestContextEndsOnSIGTERM(t *testing.T) {
	ctx, stop := Context(context.Background())
	defer stop()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGTERM did not end the context")
	}
}
