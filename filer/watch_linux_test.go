package filer

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
)

// watchKicks runs WatchInboxes over dir until the test ends and counts its kicks.
func watchKicks(t *testing.T, dir string) *atomic.Int64 {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var kicks atomic.Int64
	go func() { done <- WatchInboxes(ctx, dir, func(string) { kicks.Add(1) }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("WatchInboxes: %v", err)
		}
	})
	return &kicks
}

// TestWatchInboxesOtherProcess: an append by another process (a shell, as a
// shim's own route-1 append) kicks.
func TestWatchInboxesOtherProcess(t *testing.T) {
	dir := t.TempDir()
	kicks := watchKicks(t, dir)
	appendBy := func(name string) {
		t.Helper()
		out, err := exec.Command("sh", "-c", `printf '{"x":1}\n' >> "$1"`, "sh", filepath.Join(dir, name)).CombinedOutput()
		if err != nil {
			t.Fatalf("append by sh: %v: %s", err, out)
		}
	}
	// The watch may not be armed yet: each look appends again.
	testutil.Eventually(t, 10*time.Second, "a kick for an append to bob.jsonl", func() bool {
		appendBy("bob.jsonl")
		return kicks.Load() > 0
	})
	before := kicks.Load()
	appendBy("bob.jsonl")
	testutil.Eventually(t, 10*time.Second, "a kick for the next append", func() bool { return kicks.Load() > before })
}

// TestWatchInboxesBurst: 5,000 appends are a few kicks, not 5,000.
func TestWatchInboxesBurst(t *testing.T) {
	dir := t.TempDir()
	kicks := watchKicks(t, dir)
	path := filepath.Join(dir, "bob.jsonl")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	testutil.Eventually(t, 10*time.Second, "the watch armed", func() bool {
		_, _ = f.WriteString("{}\n")
		return kicks.Load() > 0
	})
	before := kicks.Load()
	for range 5000 {
		if _, err := f.WriteString("{}\n"); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, 10*time.Second, "a kick for the burst", func() bool { return kicks.Load() > before })
	if got := kicks.Load() - before; got > 500 {
		t.Errorf("5000 appends made %d kicks, want a few", got)
	}
}
