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

// supervisor runs services and restarts each one that fails, on its policy,
// except one that says restarting cannot help (backoff.NoRestart), which it
// leaves stopped, and one whose failure ends the daemon (backoff.Fatal), for
// which it calls stop. It owns their goroutines; wait returns once every one
// has ended, with the first fatal failure.
type supervisor struct {
	log   *slog.Logger
	stop  func()                                           // ends the daemon
	now   func() time.Time                                 // nil: time.Now
	sleep func(ctx context.Context, d time.Duration) error // nil: a timer, ended by ctx
	wg    sync.WaitGroup

	mu    sync.Mutex
	fatal error
}

func newSupervisor(log *slog.Logger, stop func()) *supervisor {
	return &supervisor{log: log, stop: stop}
}

func (s *supervisor) start(ctx context.Context, svc service) {
	p := svc.policy
	if p == (backoff.Policy{}) {
		p = restart
	}
	loop := backoff.Loop{Policy: p, Name: svc.name, Log: s.log, Now: s.now, Sleep: s.sleep}
	s.wg.Go(func() {
		if err := loop.Run(ctx, svc.run); backoff.IsFatal(err) {
			s.mu.Lock()
			if s.fatal == nil {
				s.fatal = err
			}
			s.mu.Unlock()
			s.stop()
		}
	})
}

func (s *supervisor) wait() error {
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fatal
}
