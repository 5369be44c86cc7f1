package hooks

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/daemontest"
	"github.com/sotcomm/sotd/registry"
)

// BenchmarkHookRegistrySize is the agent hooks in a home whose registry lists
// 10 entries and in one that lists 10,000, in turn in each op: posttool (every
// tool call: its stamps known fresh from its record of its last read, so it
// reads no registry and writes nothing), prompt (each turn's start: a status
// write) and stop (each turn's end: the stop_at mark, the unread count and a
// status write). It reports each one's µs and the large case's time over the
// small one's, in the same run, each home's daemon running: "file" with the
// hooks told another socket, so a hook reads the registry file itself (as
// before registry.rows), and "daemon", so a hook over a large registry asks
// the daemon for its row (client.Session.ReadRows). A write rewrites its row
// in place either way. One untimed round comes first: a daemon's start over
// 10,000 entries (its whole parse, its page's first look at every inbox) is
// no hook's cost, and a session's first heartbeat reads its row, as a
// heartbeat does at most about twice each beatFresh, not at each tool call.
//
//	go test -run='^$' -bench=HookRegistrySize -benchtime=20x ./hooks/
func BenchmarkHookRegistrySize(b *testing.B) {
	b.Run("file", func(b *testing.B) { benchHookRegistrySize(b, false) })
	b.Run("daemon", func(b *testing.B) { benchHookRegistrySize(b, true) })
}

func benchHookRegistrySize(b *testing.B, withDaemon bool) {
	sizes := []int{10, 10000}
	hooks := []struct {
		name string
		run  func(Run) int
		in   string
	}{
		{"posttool", func(r Run) int { return PostTool(r, false) }, postInput},
		{"prompt", Prompt, `{"session_id":"s-1","hook_event_name":"UserPromptSubmit","prompt":"look for the flaky test's cause"}`},
		{"stop", Stop, stopInput},
	}
	sessions := make([]*client.Session, len(sizes))
	for i, n := range sizes {
		sessions[i] = registryOf(b, n)
		daemontest.Start(b, sessions[i].Home, sessions[i].Host)
	}
	if !withDaemon {
		b.Setenv(home.EnvSocket, filepath.Join(b.TempDir(), "none.sock"))
	}
	took := make([][2]time.Duration, len(hooks))
	round := func(timed bool) {
		for k, h := range hooks {
			for i, s := range sessions {
				start := time.Now()
				if code := h.run(Run{In: strings.NewReader(h.in), Out: io.Discard, Err: io.Discard, Session: s, Ancestry: ownCodex}); code != ExitOK {
					b.Fatalf("%s with %d entries: exit %d", h.name, sizes[i], code)
				}
				if timed {
					took[k][i] += time.Since(start)
				}
			}
		}
	}
	round(false)
	for b.Loop() {
		round(true)
	}
	for k, h := range hooks {
		for i, n := range sizes {
			b.ReportMetric(float64(took[k][i].Microseconds())/float64(b.N), fmt.Sprintf("µs/%s-%d", h.name, n))
		}
		b.ReportMetric(float64(took[k][1])/float64(took[k][0]), fmt.Sprintf("%s-%d/%s-%d", h.name, sizes[1], h.name, sizes[0]))
	}
}

// registryOf is a home whose registry lists n live sessions of other boxes,
// and in which alice has joined.
func registryOf(b *testing.B, n int) *client.Session {
	b.Helper()
	b.Setenv(home.EnvName, "")
	h, err := home.At(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := h.Ensure(); err != nil {
		b.Fatal(err)
	}
	now := registry.Stamp(time.Now())
	agents := map[string]any{}
	for i := range n {
		agents[fmt.Sprintf("s%05d", i)] = map[string]any{"host": "other", "repo": "r", "root": "/src/r", "joined": now, "last_seen": now}
	}
	doc, _ := json.Marshal(map[string]any{"protocol_version": registry.ProtocolVersion, "agents": agents})
	if err := home.WriteAtomic(h.Registry(), doc); err != nil {
		b.Fatal(err)
	}
	s := &client.Session{Home: h, Host: "box", Cwd: b.TempDir(), Stdout: io.Discard, Stderr: io.Discard, Now: time.Now}
	if code := s.Join(client.JoinArgs{Name: "alice"}); code != client.ExitOK {
		b.Fatalf("join: %d", code)
	}
	return s
}
