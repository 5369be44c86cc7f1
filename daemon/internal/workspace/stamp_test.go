//go:build !windows

package workspace

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/rigtest"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/rows/rowstest"
)

// stampRig is a rows manager on the PTY with a fake clock and two rows: Repo-box
// (running, bound to it) and idle-box (bound to a row that was removed).
type stampRig struct {
	h    home.Home
	clk  *testutil.Clock
	logs *testutil.SyncBuffer
	m    *Manager
	st   *stamper
	row  string
}

func newStampRig(t *testing.T) *stampRig {
	h := rigtest.NewHome(t)
	clk := testutil.NewClock(rigtest.Now)
	logs := &testutil.SyncBuffer{}
	b := rows.NewPTY(rows.Options{})
	t.Cleanup(func() { b.Close() })
	m := New(h, "box", slog.New(slog.NewTextHandler(logs, nil)), clk.Now, b)
	spawn, _ := rigtest.FakeSpawn(t, "Repo", "Repo-box")
	ref, err := m.Spawn(spawn)
	if err != nil {
		t.Fatal(err)
	}
	rowstest.WaitPhase(t, b, ref.WorkspaceID, 10*time.Second, rows.Ready)
	gone, _ := rigtest.FakeSpawn(t, "gone", "idle-box")
	goneRef, err := m.Spawn(gone)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Destroy(goneRef.WorkspaceID); err != nil {
		t.Fatal(err)
	}
	return &stampRig{h: h, clk: clk, logs: logs, m: m, st: newStamper(m), row: ref.WorkspaceID}
}

func (r *stampRig) lastSeen(t *testing.T, handle string) string {
	t.Helper()
	d, err := registry.Read(r.h)
	if err != nil {
		t.Fatal(err)
	}
	return d.Agents[handle].LastSeen
}

// TestStamperStampsRunningRows stamps only the handle of a running row, and
// only while the registry binds it to that row.
func TestStamperStampsRunningRows(t *testing.T) {
	r := newStampRig(t)
	r.clk.Add(5 * time.Minute)
	if err := r.st.stampAll(); err != nil {
		t.Fatal(err)
	}
	if got, want := r.lastSeen(t, "Repo-box"), registry.Stamp(r.clk.Now()); got != want {
		t.Errorf("Repo-box last_seen = %s, want %s", got, want)
	}
	// The removed row's handle was made not live at its despawn, and stays so.
	if got := r.lastSeen(t, "idle-box"); got != "" {
		t.Errorf("the removed row's idle-box last_seen = %s, want none: a despawned row's handle is not live", got)
	}
	// Another box's row takes the handle: this daemon stamps it no more.
	if err := registry.Mark(r.h, "Repo-box", time.Second, func(e *registry.Entry) error {
		e.Host = "other"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	before := r.lastSeen(t, "Repo-box")
	r.clk.Add(time.Minute)
	if err := r.st.stampAll(); err != nil {
		t.Fatal(err)
	}
	if got := r.lastSeen(t, "Repo-box"); got != before {
		t.Errorf("a handle bound elsewhere was stamped: %s, want %s", got, before)
	}
}

// TestStamperWarnsOncePerMinute: an unreadable registry stamps nothing and is
// warned about at most once a minute on the daemon's clock.
func TestStamperWarnsOncePerMinute(t *testing.T) {
	r := newStampRig(t)
	if err := home.WriteAtomic(r.h.Registry(), []byte("not json")); err != nil {
		t.Fatal(err)
	}
	const warning = "handles were not stamped live"
	for i, step := range []struct {
		advance time.Duration
		warns   int
	}{{0, 1}, {30 * time.Second, 1}, {29 * time.Second, 1}, {time.Second, 2}, {time.Minute, 3}} {
		r.clk.Add(step.advance)
		if err := r.st.stampAll(); err == nil {
			t.Fatalf("step %d: an unreadable registry was stamped", i)
		}
		if got := strings.Count(r.logs.String(), warning); got != step.warns {
			t.Fatalf("step %d: %d warnings, want %d; log:\n%s", i, got, step.warns, r.logs)
		}
	}
}

// TestStamperRuns: the service stamps at its tick and when the rows change.
func TestStamperRuns(t *testing.T) {
	r := newStampRig(t)
	ticks := make(chan time.Time)
	r.st.after = func(d time.Duration) <-chan time.Time {
		if d != StampEvery {
			t.Errorf("the stamper waits %s, want %s", d, StampEvery)
		}
		return ticks
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.st.run(ctx) }()
	waitStamp := func(what string) {
		t.Helper()
		want := registry.Stamp(r.clk.Now())
		testutil.Eventually(t, 5*time.Second, what, func() bool { return r.lastSeen(t, "Repo-box") == want })
	}
	waitStamp("the first stamp")
	r.clk.Add(StampEvery)
	ticks <- r.clk.Now()
	waitStamp("the stamp at the tick")
	r.clk.Add(10 * time.Second)
	spawn, _ := rigtest.FakeSpawn(t, "more", "")
	if _, err := r.m.Spawn(spawn); err != nil {
		t.Fatal(err)
	}
	waitStamp("the stamp when the rows changed")
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run returned %v", err)
	}
}

// TestStamperRewritesOncePerPass: a pass stamps every handle it keeps live in
// one rewrite of the registry, however many there are, and a pass that
// changes nothing rewrites nothing: each rewrite is the whole file and three
// fsyncs, and a registry of thousands of entries makes one per handle costly.
func TestStamperRewritesOncePerPass(t *testing.T) {
	r := newStampRig(t)
	// The running row holds five more handles, as a row that took new names
	// while its older ones stayed bound to it.
	if err := registry.Update(r.h, time.Second, func(d *registry.Doc) error {
		for i := range 5 {
			d.Agents[fmt.Sprintf("more%d-box", i)] = &registry.Entry{Host: "box", WorkspaceID: r.row, Status: "idle", Joined: registry.Stamp(r.clk.Now())}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	renames := testutil.Renames(t, r.h.Dir, filepath.Base(r.h.Registry()))
	r.clk.Add(5 * time.Minute)
	if err := r.st.stampAll(); err != nil {
		t.Fatal(err)
	}
	if got := renames(); got != 1 {
		t.Errorf("one pass over six handles rewrote the registry %d times, want 1", got)
	}
	for _, h := range []string{"Repo-box", "more0-box", "more4-box"} {
		if got, want := r.lastSeen(t, h), registry.Stamp(r.clk.Now()); got != want {
			t.Errorf("%s last_seen = %s, want %s", h, got, want)
		}
	}
	if err := r.st.stampAll(); err != nil {
		t.Fatal(err)
	}
	if got := renames(); got != 1 {
		t.Errorf("a second pass in the same second rewrote the registry: %d rewrites in all, want 1", got)
	}
}
