package service

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/windows/svc"
)

// stopHint is how long the service manager is told a stop may take: the
// daemon's own shutdown answers what it has read and flushes, then exits.
const stopHint = 30_000 // ms

// Context is `sotd serve`'s lifetime: it ends on Ctrl-C in a console, and,
// when the service manager started the process, on its Stop or Shutdown. stop
// must be called when serve is done: under the manager it reports the service
// stopped and waits until the manager has the report, since a process that
// exits first reads to the manager as a crash.
func Context(parent context.Context) (ctx context.Context, stop func()) {
	ctx, stopSignals := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	if under, err := svc.IsWindowsService(); err != nil || !under {
		return ctx, stopSignals
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &handler{cancel: cancel, done: make(chan struct{})}
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		// An error here is a dispatcher that never started: the daemon still
		// runs, and ends as a console process would.
		_ = svc.Run(Name, h)
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			close(h.done)
			<-ran
			cancel()
			stopSignals()
		})
	}
}

// handler speaks to the service manager for the serve that Context started.
type handler struct {
	cancel context.CancelFunc // ends serve's context
	done   chan struct{}      // closed when serve has returned
	asked  atomic.Bool        // the manager asked for the stop
}

// Execute reports the service running, ends serve on Stop or Shutdown and
// returns once serve is done. A serve that ended unasked exits with a
// service-specific 1, so the recovery actions install sets restart it.
func (h *handler) Execute(_ []string, r <-chan svc.ChangeRequest, s chan<- svc.Status) (bool, uint32) {
	s <- svc.Status{State: svc.Running, Accepts: svc.AcceptStop | svc.AcceptShutdown}
	for {
		select {
		case c := <-r:
			switch c.Cmd {
			case svc.Interrogate:
				s <- c.CurrentStatus
			case svc.Stop, svc.Shutdown:
				h.asked.Store(true)
				s <- svc.Status{State: svc.StopPending, WaitHint: stopHint}
				h.cancel()
			}
		case <-h.done:
			if h.asked.Load() {
				return false, 0
			}
			return true, 1
		}
	}
}
