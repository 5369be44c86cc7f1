//go:build !windows

package daemon

import (
	"encoding/base64"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/page"
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/rows/rowstest"
	"github.com/sotcomm/sotd/wake"
	"github.com/sotcomm/sotd/wire"
)

// wakeRow spawns a fake agent with a handle, extra environment on top, and
// waits until it is Ready at its prompt; it returns the row id and byte log.
func wakeRow(t *testing.T, c *wire.Client, label, handle string, env ...string) (id, log string) {
	t.Helper()
	spawn, log := fakeSpawn(t, label, handle)
	spawn.Env = append(spawn.Env, env...)
	id = rowCall[wire.WorkspaceRef](t, c, wire.OpWorkspaceSpawn, spawn).WorkspaceID
	waitRow(t, c, id, "Ready", func(w wire.Workspace) bool { return w.Phase == string(rows.Ready) && w.AgentHandle == handle })
	waitScreen(t, c, id, "the prompt", func(s wire.PtyScreen) bool { return hasLine(s, "❯") })
	return id, log
}

func fileTo(t *testing.T, c *wire.Client, handle string) {
	t.Helper()
	if filed := rowCall[wire.CommFiled](t, c, wire.OpCommFile, wire.CommFile{From: "bob", To: handle, Text: "the build is green"}); !filed.OK {
		t.Fatalf("comm.file to %s = %+v", handle, filed)
	}
}

// noticeWithin bounds the wait for a notice to a row at a free, still prompt.
// The wake types it within a tick and StillFor of the filing (3.5 s, which the
// tests log); how soon is measured by the wake matrix (integration, soak), not
// asserted here: the bound only fails a notice that never comes, so a loaded
// machine running the whole suite with -race (8.6 s seen in CI) does not.
const noticeWithin = 20 * time.Second

// TestWakeTypesTheNotice runs the wake loop in a daemon over the real fake
// agent, with each backend: mail to a row idle at a free, still prompt gets the
// notice and then Enter soon after its filing (noticeWithin), while a row whose spinner
// redraws and a row with a draft in its box get nothing; once the spinner
// stops, that row gets its notice too.
func TestWakeTypesTheNotice(t *testing.T) {
	t.Parallel()
	for _, k := range backendKinds(t) {
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			r := startRig(t, withRows(k.Make(t)))
			c := r.dial(t)
			free, freeLog := wakeRow(t, c, "free", "Free-box")
			busy, busyLog := wakeRow(t, c, "busy", "Busy-box", rowstest.EnvBusy+"=1")
			_, draftLog := wakeRow(t, c, "draft", "Draft-box", rowstest.EnvDraft+"=half a thought")

			filed := time.Now()
			for _, h := range []string{"Free-box", "Busy-box", "Draft-box"} {
				fileTo(t, c, h)
			}
			rowstest.WaitFile(t, freeLog, registry.WakeNotice+"\r", noticeWithin)
			t.Logf("%s: filing to notice submitted: %v", k.Name, time.Since(filed).Round(10*time.Millisecond))
			waitScreen(t, c, free, "the submitted notice", func(s wire.PtyScreen) bool { return hasLine(s, "> "+registry.WakeNotice) })

			time.Sleep(time.Until(filed.Add(2*wake.Every + wake.StillFor)))
			for name, log := range map[string]string{"busy": busyLog, "draft": draftLog} {
				if got := byteLog(t, log); got != "" {
					t.Errorf("the %s row got %q, want nothing typed", name, got)
				}
			}

			rowCall[wire.Done](t, c, wire.OpPtyInput, wire.PtyInput{WorkspaceID: busy, DataB64: base64.StdEncoding.EncodeToString([]byte("/idle")), Enter: true})
			rowstest.WaitFile(t, busyLog, "/idle\r"+registry.WakeNotice+"\r", noticeWithin)
			if got := byteLog(t, freeLog); got != registry.WakeNotice+"\r" {
				t.Errorf("the free row got %q since, want its one notice", got)
			}
		})
	}
}

// TestWakeRestartCompletesANotice leaves the notice typed, not sent, in a tmux
// row (which outlives its daemon); the next daemon on the home sends Enter
// alone, although the row's handle has no mail.
func TestWakeRestartCompletesANotice(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	mk := tmuxBackend(t)
	r := startRig(t, withRows(mk))
	c := r.dial(t)
	id, log := wakeRow(t, c, "Repo", "Repo-box")
	rowCall[wire.Done](t, c, wire.OpPtyInput, wire.PtyInput{WorkspaceID: id, DataB64: base64.StdEncoding.EncodeToString([]byte(registry.WakeNotice))})
	rowstest.WaitFile(t, log, registry.WakeNotice, 5*time.Second)
	c.Close()
	if err := r.stop(t); err != nil {
		t.Fatal(err)
	}

	r2 := startOn(t, r.home, withRows(mk))
	rowstest.WaitFile(t, log, registry.WakeNotice+"\r", 5*time.Second)
	c2 := r2.dial(t)
	rowCall[wire.Done](t, c2, wire.OpWorkspaceDestroy, wire.WorkspaceRef{WorkspaceID: id})
}

// listCounting is a rows backend that counts its List calls.
type listCounting struct {
	rows.Backend
	lists atomic.Int64
}

func (c *listCounting) List() ([]rows.RowInfo, error) {
	c.lists.Add(1)
	return c.Backend.List()
}

// TestWakeSkipsMailNoRowCanTake files line after line to @bob, whom the
// registry binds to no row, for many of the wake's MailGaps: no filing starts
// the wake's pass, so the rows are listed only by its ticks and the page's
// watch.
func TestWakeSkipsMailNoRowCanTake(t *testing.T) {
	t.Parallel()
	b := &listCounting{}
	r := startRig(t, withRows(func(_ home.Home, _ string, opt rows.Options) rows.Backend {
		b.Backend = rows.NewPTY(opt)
		return b
	}))
	c := r.dial(t)
	before, start, lines := b.lists.Load(), time.Now(), 0
	for ; time.Since(start) < 10*wake.MailGap; lines++ {
		fileTo(t, c, "bob")
	}
	took := time.Since(start)
	// The ticks in that time, each end counted, and a pass that was due anyway;
	// and the daemon's own first passes (6 listings on a daemon just started:
	// its services' first looks), which a loaded machine may run only now. A
	// filing that started a pass would list the rows once a line: 100 and more.
	allowed := 3 + 6 + int64(took/wake.Every) + int64(took/page.WatchEvery)
	if n := b.lists.Load() - before; n > allowed {
		t.Errorf("the rows were listed %d times while %d lines were filed to a handle no row acts as (in %v), want at most %d: the filings started the wake's passes", n, lines, took.Round(time.Millisecond), allowed)
	}
}

// TestWakeKickedByAClientsOwnAppend: a line a client appends to the inbox
// itself (the protocol's route 1: no word to the daemon) for a row's handle
// gets the notice typed into the row through the inbox watch's kick alone,
// for the wake's ticker here never ticks.
func TestWakeKickedByAClientsOwnAppend(t *testing.T) {
	t.Parallel()
	never := func(time.Duration) (<-chan time.Time, func()) { return nil, func() {} }
	r := startRig(t, withRows(backendKinds(t)[0].Make(t)), func(d *Daemon) { d.wakeTicker = never })
	c := r.dial(t)
	_, log := wakeRow(t, c, "free", "Free-box")
	filed := time.Now()
	line := filer.Line{From: "bob", To: "Free-box", Repo: "r", Msg: "the build is green", TS: registry.Stamp(filed)}
	if _, err := filer.New(r.home).Append("Free-box", []filer.Line{line}); err != nil {
		t.Fatal(err)
	}
	rowstest.WaitFile(t, log, registry.WakeNotice+"\r", noticeWithin)
	t.Logf("a client's own append to the notice submitted, no tick: %v", time.Since(filed).Round(10*time.Millisecond))
}
