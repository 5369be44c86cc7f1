package daemon

import (
	"context"
	"runtime"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wake"
)

// startWake runs the wake loop over the daemon's rows under sup; ticker, when
// set, stands in for the loop's 2 s ticker (a test's).
func (m *rowsManager) startWake(ctx context.Context, sup *supervisor, f *filer.Filer, filed <-chan struct{}, ticker func(time.Duration) (<-chan time.Time, func())) {
	loop := m.wakeLoop(f, filed)
	loop.Ticker = ticker
	sup.start(ctx, service{name: "wake", run: loop.Run})
}

// wakeLoop is the wake over these rows, reading inboxes through f. It keeps the
// wall clock, not the daemon's: a screen holds still, an echo shows and a
// stop_at mark ages in real time, as the filer's lock waits do.
func (m *rowsManager) wakeLoop(f *filer.Filer, filed <-chan struct{}) *wake.Loop {
	return &wake.Loop{
		Rows:    WakeRows{m},
		Unread:  wake.FilerUnread(f),
		Entry:   func(handle string) (*registry.Entry, bool, error) { return registry.Lookup(m.home, handle) },
		Windows: runtime.GOOS == "windows",
		Now:     time.Now,
		Log:     m.log,
		Filed:   filed,
	}
}
