//go:build !windows

package workspace

import (
	"encoding/base64"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/rigtest"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/wire"
)

// TestAnUnreadableRegistryIsLoggedOnce lists rows as the page's tick does,
// 51 times while the registry does not parse: one WARN says so, and one INFO
// when it reads again; the ticks after say nothing.
func TestAnUnreadableRegistryIsLoggedOnce(t *testing.T) {
	h := home.Home{Dir: t.TempDir()}
	logs := &testutil.SyncBuffer{}
	m := New(h, "box", slog.New(slog.NewTextHandler(logs, nil)), time.Now, rows.NewPTY(rows.Options{}))
	defer m.Close()
	if err := os.WriteFile(h.Registry(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	tick := func(n int) {
		for range n {
			if _, err := m.List(); err != nil {
				t.Fatal(err)
			}
		}
	}
	tick(51)
	if err := os.Remove(h.Registry()); err != nil {
		t.Fatal(err)
	}
	if err := registry.Ensure(h); err != nil {
		t.Fatal(err)
	}
	tick(5)
	log := logs.String()
	for sub, n := range map[string]int{"level=WARN": 1, "the registry does not read": 1, "level=INFO": 1, "the registry reads again": 1} {
		if got := strings.Count(log, sub); got != n {
			t.Errorf("the log says %q %d times, want %d:\n%s", sub, got, n, log)
		}
	}
}

// TestTypingKeepsEachInputWhole types pty.inputs, each text then its Enter,
// into one row at once while the wake types its own single writes: each input
// reaches the row whole (the backends serialise one write, not a pair), and
// once the typing is done the daemon holds no lock for the row, nor for rows
// that are gone.
func TestTypingKeepsEachInputWhole(t *testing.T) {
	for _, k := range rigtest.BackendKinds(t) {
		t.Run(k.Name, func(t *testing.T) {
			h := rigtest.NewHome(t)
			m := New(h, "box", slog.New(slog.DiscardHandler), time.Now, k.Make(t)(h, "box", rows.Options{}))
			defer m.Close()
			spawn, log := rigtest.FakeSpawn(t, "Repo", "")
			ref, err := m.Spawn(spawn)
			if err != nil {
				t.Fatal(err)
			}
			id := ref.WorkspaceID
			defer m.Destroy(id)
			testutil.Eventually(t, 10*time.Second, "the row to be Ready", func() bool {
				rs := (WakeRows{m}).List()
				return len(rs) == 1 && rs[0].Ready
			})
			const n = 12
			var typists sync.WaitGroup
			for i := range n {
				typists.Go(func() {
					in := wire.PtyInput{WorkspaceID: id, DataB64: base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "<%02d>", i)), Enter: true}
					if _, err := m.Input(in); err != nil {
						t.Errorf("pty.input %d: %v", i, err)
					}
				})
				typists.Go(func() {
					if err := (WakeRows{m}).Input(id, []byte("~")); err != nil {
						t.Errorf("the wake's write %d: %v", i, err)
					}
				})
			}
			typists.Wait()
			var got string
			testutil.Eventually(t, 5*time.Second, "every input in the row's byte log", func() bool {
				got = rigtest.ByteLog(t, log)
				return strings.Count(got, "\r") == n && strings.Count(got, "~") == n
			})
			for i := range n {
				if want := fmt.Sprintf("<%02d>\r", i); !strings.Contains(got, want) {
					t.Fatalf("the row's byte log %q does not hold %q whole", got, want)
				}
			}
			if err := (WakeRows{m}).Input("ws-gone", []byte("x")); err == nil {
				t.Fatal("typing into a row that does not exist did not fail")
			}
			m.mu.Lock()
			left := len(m.typing)
			m.mu.Unlock()
			if left != 0 {
				t.Fatalf("the daemon holds %d row locks after the typing ended, want none", left)
			}
		})
	}
}
