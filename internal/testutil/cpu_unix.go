//go:build unix

package testutil

import (
	"syscall"
	"testing"
	"time"
)

// CPU is this process's CPU time so far, user and system: what a benchmark
// reports per op or per minute beside wall time.
func CPU(tb testing.TB) time.Duration { return rusage(tb, syscall.RUSAGE_SELF) }

// CPUWithChildren is CPU plus that of the children this process has reaped,
// so the tmux clients a rows call runs are counted.
func CPUWithChildren(tb testing.TB) time.Duration {
	return CPU(tb) + rusage(tb, syscall.RUSAGE_CHILDREN)
}

func rusage(tb testing.TB, who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
