package daemon

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/sotcomm/sotd/internal/ctxsleep"
)

// service is one long-running part of the daemon (a link listener, a guest's
// link, its directory): run works until ctx ends, then returns nil, or returns
// why it failed.
type service struct {
	name string
	run  func(ctx context.Context) error
}

// Restart schedule of a failing service.
const (
	restartFirst = time.Second
	restartMax   = time.Minute
	restartReset = time.Minute // a run this long starts the schedule again
)

// supervisor runs services and restarts each one that fails, with backoff; it
// owns their goroutines, and wait returns once every one has ended.
type supervisor struct {
	log   *slog.Logger
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
	wg    sync.WaitGroup
}

func newSupervisor(log *slog.Logger) *supervisor {
	return &supervisor{log: log, now: time.Now, sleep: ctxsleep.Sleep}
}

func (s *supervisor) start(ctx context.Context, svc service) {
	s.wg.Go(func() { s.keep(ctx, svc) })
}

func (s *supervisor) wait() { s.wg.Wait() }

// keep runs svc until ctx ends. A failure repeated word for word is logged once,
// so a listener whose port stays taken does not fill the log.
func (s *supervisor) keep(ctx context.Context, svc service) {
	var wait time.Duration
	var last string
	for {
		began := s.now()
		err := svc.run(ctx)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			err = errors.New("it stopped by itself")
		}
		if wait == 0 || s.now().Sub(began) >= restartReset {
			wait = restartFirst
		} else {
			wait = min(2*wait, restartMax)
		}
		if msg := err.Error(); msg != last {
			s.log.Error("a service failed; it is restarted", "service", svc.name, "err", msg, "retry_in", wait)
			last = msg
		} else {
			s.log.Debug("a service failed again", "service", svc.name, "err", msg, "retry_in", wait)
		}
		if s.sleep(ctx, wait) != nil {
			return
		}
	}
}

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
