package workspace

import (
	"runtime"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wake"
)

// WakeLoop is the wake over these rows, reading inboxes through f. It keeps the
// wall clock, not the daemon's: a screen holds still, an echo shows and a
// stop_at mark ages in real time, as the filer's lock waits do.
func (m *Manager) WakeLoop(f *filer.Filer, filed <-chan struct{}) *wake.Loop {
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
