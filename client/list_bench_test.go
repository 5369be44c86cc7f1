//go:build unix

package client

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/daemontest"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
)

// BenchmarkListRegistrySize is a sotd list in a home whose registry lists 10
// live sessions and nothing else, and in one that lists the same 10 live and
// 9,990 stale entries (10,000 in all), in turn in each op, each home's daemon
// running: "daemon", as a list runs, asking the daemon's view (net.list), and
// "file", with the commands told another socket, so each reads the registry
// file itself. It reports each case's µs and the large case's time over the
// small one's, wall and CPU (the process's, the daemon's share included:
// getrusage), measured in the same run, after one untimed list in each home:
// a daemon's start over 10,000 entries (its whole parse, its page's first
// look at every inbox) is no list's cost.
//
//	go test -run='^$' -bench=ListRegistrySize -benchtime=200x ./client/
func BenchmarkListRegistrySize(b *testing.B) {
	b.Run("daemon", func(b *testing.B) { benchListSize(b, true) })
	b.Run("file", func(b *testing.B) { benchListSize(b, false) })
}

func benchListSize(b *testing.B, withDaemon bool) {
	const live = 10
	sizes := []int{10, 10000}
	sessions := make([]*Session, len(sizes))
	for i, n := range sizes {
		sessions[i] = listHome(b, live, n-live)
		b.Setenv(home.EnvSocket, "")
		daemontest.Start(b, sessions[i].Home, sessions[i].Host)
	}
	if !withDaemon {
		b.Setenv(home.EnvSocket, filepath.Join(b.TempDir(), "none.sock"))
	}
	took, cpu := make([]time.Duration, len(sizes)), make([]time.Duration, len(sizes))
	round := func(timed bool) {
		for i, s := range sessions {
			start, startCPU := time.Now(), testutil.CPU(b)
			if code := s.List(ListArgs{}); code != ExitOK {
				b.Fatalf("list with %d entries: exit %d", sizes[i], code)
			}
			if timed {
				took[i] += time.Since(start)
				cpu[i] += testutil.CPU(b) - startCPU
			}
		}
	}
	round(false)
	for b.Loop() {
		round(true)
	}
	for i, n := range sizes {
		b.ReportMetric(float64(took[i].Microseconds())/float64(b.N), fmt.Sprintf("µs/list-%d", n))
	}
	ratio := fmt.Sprintf("list-%d/list-%d", sizes[1], sizes[0])
	b.ReportMetric(float64(took[1])/float64(took[0]), ratio)
	b.ReportMetric(float64(cpu[1])/float64(max(cpu[0], 1)), "cpu:"+ratio)
}

// listHome is a home whose registry lists alice and live-1 other live
// sessions of this box, and stale entries last seen 30 days ago, as a
// registry that no one prunes holds.
func listHome(t testing.TB, live, stale int) *Session {
	t.Helper()
	now, old := registry.Stamp(time.Now()), registry.Stamp(time.Now().Add(-30*24*time.Hour))
	seen := map[string]string{"alice": now}
	for i := range live - 1 {
		seen[fmt.Sprintf("live%03d", i)] = now
	}
	for i := range stale {
		seen[fmt.Sprintf("s%05d", i)] = old
	}
	return registryHome(t, seen)
}
