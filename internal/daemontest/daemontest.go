// Package daemontest runs a real daemon in a test's process, for the tests
// and benchmarks of packages the daemon does not import (client, hooks) that
// need one answering on a home's socket.
package daemontest

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/sotcomm/sotd/daemon"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
)

// Start runs a standalone daemon (no hosts.toml, no status page) for host on
// h until the test ends, and returns once its socket answers.
func Start(tb testing.TB, h home.Home, host string) {
	tb.Helper()
	d, err := daemon.New(daemon.Config{Home: h, Host: host, HostsPath: filepath.Join(tb.TempDir(), "hosts.toml"), Log: slog.New(slog.DiscardHandler), HTTP: daemon.HTTPOff})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("the daemon: %v", err)
		}
	})
	testutil.Eventually(tb, 10*time.Second, "the daemon to listen", func() bool { return testutil.Answers(h.Socket(host)) })
}
