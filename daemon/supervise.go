package daemon

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/sotcomm/sotd/internal/backoff"
)

// service is one long-running part of the daemon (a link listener, a guest's
// link, its directory): run works until ctx ends, then returns nil, or returns
// why it failed.
type service struct {
	name string
	run  func(ctx context.Context) error
	// policy is when it is run again after a failure; zero is restart.
	policy backoff.Policy
}

// restart is a failing service's schedule, unless it has its own. A listener
// whose port stays taken is an error worth seeing.
var restart = backoff.Policy{First: time.Second, Max: time.Minute, ResetAfter: time.Minute, Level: slog.LevelError}

// supervisor runs services and restarts each one that fails, on its policy; it
// owns their goroutines, and wait returns once every one has ended.
type supervisor struct {
	log   *slog.Logger
	now   func() time.Time                                 // nil: time.Now
	sleep func(ctx context.Context, d time.Duration) error // nil: a timer, ended by ctx
	wg    sync.WaitGroup
}

func newSupervisor(log *slog.Logger) *supervisor {
	return &supervisor{log: log}
}

func (s *supervisor) start(ctx context.Context, svc service) {
	p := svc.policy
	if p == (backoff.Policy{}) {
		p = restart
	}
	loop := backoff.Loop{Policy: p, Name: svc.name, Log: s.log, Now: s.now, Sleep: s.sleep}
	s.wg.Go(func() { loop.Run(ctx, svc.run) })
}

func (s *supervisor) wait() { s.wg.Wait() }

// everyTick is a service's body that runs do once each period until ctx ends.
func everyTick(ctx context.Context, period time.Duration, do func()) error {
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
