// Package backoff is the one restart policy: every daemon service that fails,
// and a guest's link to its hub, is run again after a wait that doubles from a
// first wait to a cap, and starts again from the first after a run that was
// healthy. A failure repeated word for word is logged once (package logonce).
// The schedule's numbers are each user's own; the rule is here alone.
package backoff

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/sotcomm/sotd/internal/ctxsleep"
	"github.com/sotcomm/sotd/internal/logonce"
)

// Policy is a restart schedule.
type Policy struct {
	First      time.Duration // the wait after the first failure
	Max        time.Duration // doubling stops here
	ResetAfter time.Duration // a run this long was healthy: the next wait is First; 0: no run is by its length
	// Jitter draws each wait from the upper half of the schedule's (equal
	// jitter: 1–2 s for 2 s, 30–60 s for 60 s). Many boxes that failed at
	// one moment (a hub's restart) then spread out, and spread further with
	// each round instead of keeping step, while none retries sooner than half
	// its wait.
	Jitter bool
	Level  slog.Level // of a failure's first line; its repeats are Debug
}

// Healthy marks err as the end of a run that had worked (a link that came up),
// so the next wait is First however short the run was.
func Healthy(err error) error { return healthy{err} }

type healthy struct{ error }

func (h healthy) Unwrap() error { return h.error }

// NoRestart marks err as the end of a service that running again cannot mend
// (hosts.toml no longer gives this box the role the service serves): Loop
// logs it and does not run the service again; the rest of the daemon goes on.
func NoRestart(err error) error { return stopped{err, false} }

// Fatal marks err as a failure the whole daemon must stop for (its socket and
// locks taken by another daemon): Loop logs it and returns it, and the
// supervisor ends the daemon with it.
func Fatal(err error) error { return stopped{err, true} }

// IsFatal reports whether err was marked by Fatal.
func IsFatal(err error) bool {
	var s stopped
	return errors.As(err, &s) && s.fatal
}

// stopped is a run's end that is not restarted; fatal ends the daemon too.
type stopped struct {
	error
	fatal bool
}

func (s stopped) Unwrap() error { return s.error }

// schedule is one service's place on its Policy.
type schedule struct {
	Policy
	cur time.Duration
}

// next is the wait, before jitter, after a run that lasted ran and ended in
// err; fresh is true when the schedule started again, after a healthy run or
// at the first failure.
func (s *schedule) next(ran time.Duration, err error) (wait time.Duration, fresh bool) {
	var h healthy
	fresh = s.cur == 0 || (s.ResetAfter > 0 && ran >= s.ResetAfter) || errors.As(err, &h)
	if fresh {
		s.cur = s.First
	} else {
		s.cur = min(2*s.cur, s.Max)
	}
	return s.cur, fresh
}

// Loop runs a service again each time it returns, on its Policy, until ctx
// ends. Now, Sleep and Rand are a test's knobs.
type Loop struct {
	Policy
	Name  string // the service, in log lines
	Log   *slog.Logger
	Now   func() time.Time                                 // default time.Now
	Sleep func(ctx context.Context, d time.Duration) error // default ctxsleep.Sleep
	Rand  func(n time.Duration) time.Duration              // uniform in [0, n); default math/rand/v2's N
}

// Run runs run until ctx ends, and then returns nil. A run that returns nil
// before then has stopped by itself, and is run again too. A run that returns
// an error marked NoRestart or Fatal is not: Run logs it and returns it.
func (l Loop) Run(ctx context.Context, run func(ctx context.Context) error) error {
	now, sleep, rnd := l.Now, l.Sleep, l.Rand
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = ctxsleep.Sleep
	}
	if rnd == nil {
		rnd = rand.N[time.Duration]
	}
	s := schedule{Policy: l.Policy}
	var failing logonce.Condition
	for {
		began := now()
		err := run(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var stop stopped
		if errors.As(err, &stop) {
			msg := "a service stopped and is not restarted, since running it again cannot mend what stopped it"
			if stop.fatal {
				msg = "a service failed in a way the daemon cannot go on from, so the daemon stops"
			}
			l.Log.Error(msg, "service", l.Name, "err", stop.error)
			return err
		}
		if err == nil {
			err = errors.New("it stopped by itself")
		}
		wait, fresh := s.next(now().Sub(began), err)
		if fresh {
			failing.Reset() // after a healthy run, a failure is news again
		}
		if l.Jitter {
			wait = wait/2 + rnd(wait/2+1)
		}
		failing.Fail(l.Log, l.Level, "a service failed; it is restarted", err, "service", l.Name, "retry_in", wait.Round(time.Millisecond))
		if sleep(ctx, wait) != nil {
			return nil
		}
	}
}
