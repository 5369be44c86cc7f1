// Package testutil holds what several packages' tests share.
package testutil

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
)

// SyncBuffer is a log sink that goroutines and a test may share: a daemon's or a
// filer's log, read by the test while they still write.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Contains reports whether the log so far holds sub.
func (s *SyncBuffer) Contains(sub string) bool { return strings.Contains(s.String(), sub) }

// Logger is a debug-level text logger into s, so a test can assert on the
// lines a part logs below the daemon's default level.
func (s *SyncBuffer) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(s, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
