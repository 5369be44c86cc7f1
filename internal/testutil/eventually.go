package testutil

import (
	"net"
	"os"
	"testing"
	"time"
)

// Eventually polls cond until it holds, and fails the test naming what it
// waited for when it has not held within the bound. It is the one way a test
// waits: a bare sleep followed by an assertion is either slow or flaky, and a
// hand-written deadline loop is a twin.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Within(within, cond) {
		t.Fatalf("waited %s for %s", within, what)
	}
}

// Within polls cond until it holds or the bound passes, and says whether it
// held: for a test that reports more than Eventually's sentence when it did not
// (the last screen, the daemon's log). The first looks come a few milliseconds
// apart, then each waits twice the last, up to withinCap: many conditions run
// a process to look (a sotd command, a tmux capture), and at a fixed 5 ms a
// wait of seconds for a link's death ran hundreds of them (integration's
// TestNetworkView: 20.7 CPU-s alone, 9.1 with the back-off).
func Within(within time.Duration, cond func() bool) bool {
	return poll(within, 5*time.Millisecond, func(d time.Duration) time.Duration { return min(2*d, withinCap) }, cond)
}

// withinCap is the longest Within waits between two looks: what a condition
// that holds is noticed late by, at most.
const withinCap = 100 * time.Millisecond

// WithinEvery is Within for a cond that costs a process or more to ask (a
// tmux capture), polled every so often rather than every few milliseconds.
func WithinEvery(within, every time.Duration, cond func() bool) bool {
	return poll(within, every, func(d time.Duration) time.Duration { return d }, cond)
}

// poll looks at cond until it holds or within has passed, first after every,
// then after next of the last wait.
func poll(within, every time.Duration, next func(time.Duration) time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(every)
		every = next(every)
	}
	return true
}

// ShortDir makes a folder under the system's temp root, removed when the test
// ends. A socket path under t.TempDir() can pass the OS's limit (104 bytes on
// macOS, 108 on Linux); one under ShortDir cannot.
func ShortDir(t testing.TB, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// Answers says whether a Unix socket at path takes a connection: a daemon's
// socket file exists from its bind, a moment before its listen, and one left by
// a killed daemon exists with nobody listening, so the file alone says neither.
func Answers(path string) bool {
	c, err := net.Dial("unix", path)
	if err == nil {
		c.Close()
	}
	return err == nil
}
