// Package rigtest holds the test rig's pieces that the daemon's packages'
// tests share: a comm home under /tmp with a known registry, and the clock
// liveness is judged against. Only tests import it.
package rigtest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
)

// Now is the daemon's clock in every test: liveness is judged against it.
var Now = time.Date(2026, 5, 29, 18, 4, 0, 0, time.UTC)

// NewHome makes a comm home under /tmp (socket paths under t.TempDir() can
// exceed the OS's limit, 104 bytes on macOS) whose registry lists bob (live),
// stale (last seen an hour ago) and carol (live).
func NewHome(t testing.TB) home.Home {
	t.Helper()
	dir := testutil.ShortDir(t, "sd")
	h, err := home.At(dir)
	if err != nil {
		t.Fatal(err)
	}
	WriteRegistry(t, h, map[string]string{
		"bob":   registry.Stamp(Now.Add(-time.Minute)),
		"carol": registry.Stamp(Now),
		"stale": registry.Stamp(Now.Add(-time.Hour)),
	})
	return h
}

// WriteRegistry publishes a registry whose agents were last seen as given.
func WriteRegistry(t testing.TB, h home.Home, lastSeen map[string]string) {
	t.Helper()
	agents := map[string]any{}
	for name, ls := range lastSeen {
		agents[name] = map[string]any{"host": "box", "repo": name, "root": "/src/" + name, "status": "active", "joined": ls, "last_seen": ls}
	}
	b, err := json.Marshal(map[string]any{"protocol_version": 1, "agents": agents})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	if err := home.WriteAtomic(h.Registry(), b); err != nil {
		t.Fatal(err)
	}
}
