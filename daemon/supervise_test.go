package daemon

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/backoff"
	"github.com/sotcomm/sotd/internal/testutil"
)

// TestSupervisorRestartsAFailingService runs a service that fails on a script:
// the waits between runs follow the schedule on the test's clock, a failure
// repeated word for word is logged once until a healthy run, and stopping waits
// for the service.
func TestSupervisorRestartsAFailingService(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	s := newSupervisor(slog.New(slog.NewTextHandler(logs, nil)), func() {})
	var (
		mu    sync.Mutex
		now   = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		waits []time.Duration
	)
	s.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		now = now.Add(d)
		mu.Unlock()
		return ctx.Err()
	}
	// Each run fails, after running as long as the script says.
	script := []struct {
		ran time.Duration
		err string
	}{
		{0, "port taken"}, {0, "port taken"}, {0, "port taken"}, {0, "port taken"},
		{2 * time.Minute, "port taken"}, // a long run starts the schedule again, and its failure is news
		{0, "no key"},
		{0, ""}, // it returned nil before being stopped
	}
	ctx, cancel := context.WithCancel(context.Background())
	runs := 0
	s.start(ctx, service{name: "links", run: func(ctx context.Context) error {
		if runs == len(script) {
			cancel()
			<-ctx.Done()
			return nil
		}
		step := script[runs]
		runs++
		mu.Lock()
		now = now.Add(step.ran)
		mu.Unlock()
		if step.err == "" {
			return nil
		}
		return errors.New(step.err)
	}})
	s.wait()
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, time.Second, 2 * time.Second, 4 * time.Second}
	if !slices.Equal(waits, want) {
		t.Fatalf("waits %v, want %v", waits, want)
	}
	log := logs.String()
	for sub, n := range map[string]int{"err=\"port taken\"": 2, "err=\"no key\"": 1, "it stopped by itself": 1, "service=links": 4} {
		if got := strings.Count(log, sub); got != n {
			t.Errorf("the log says %q %d times, want %d:\n%s", sub, got, n, log)
		}
	}
}

func TestSupervisorStopsAWaitingRestart(t *testing.T) {
	s := newSupervisor(slog.New(slog.DiscardHandler), func() {})
	ctx, cancel := context.WithCancel(context.Background())
	failed := make(chan struct{}, 1)
	s.start(ctx, service{name: "x", run: func(context.Context) error {
		select {
		case failed <- struct{}{}:
		default:
		}
		return errors.New("down")
	}})
	<-failed
	start := time.Now()
	cancel()
	s.wait()
	// A stop that waited out the restart's first wait took at least that long;
	// one that cut it short took less, however loaded the machine.
	if took := time.Since(start); took >= restart.First {
		t.Fatalf("stopping took %s while the service waited to restart (its first wait is %s)", took, restart.First)
	}
}

// TestSupervisorLeavesStoppedWhatCannotBeMended: a service that says running
// it again cannot help runs once and the daemon goes on; one that fails fatally
// ends the daemon, and wait returns why.
func TestSupervisorLeavesStoppedWhatCannotBeMended(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := newSupervisor(slog.New(slog.NewTextHandler(logs, nil)), cancel)
	var runs atomic.Int32
	s.start(ctx, service{name: "links", run: func(context.Context) error {
		runs.Add(1)
		return backoff.NoRestart(errors.New("no longer the hub"))
	}})
	testutil.Eventually(t, 5*time.Second, "the no-restart failure to be logged", func() bool {
		return logs.Contains("not restarted")
	})
	if ctx.Err() != nil {
		t.Fatal("a service that is not restarted ended the daemon")
	}
	gone := errors.New("another daemon holds the socket")
	s.start(ctx, service{name: "run watch", run: func(context.Context) error { return backoff.Fatal(gone) }})
	testutil.Eventually(t, 5*time.Second, "the fatal failure to end the daemon", func() bool { return ctx.Err() != nil })
	if err := s.wait(); !errors.Is(err, gone) {
		t.Fatalf("wait = %v, want the fatal failure", err)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the no-restart service ran %d times, want 1", n)
	}
	if !strings.Contains(logs.String(), "service=links") || !strings.Contains(logs.String(), "the daemon stops") {
		t.Fatalf("the log does not name both stops:\n%s", logs)
	}
}
