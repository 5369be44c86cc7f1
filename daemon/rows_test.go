//go:build !windows

package daemon

import (
	"context"
	"encoding/base64"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/daemon/internal/rigtest"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/rows/rowstest"
	"github.com/sotcomm/sotd/wire"
)

// The rows backends under test (rigtest).
type backendKind = rigtest.BackendKind

var (
	backendKinds = rigtest.BackendKinds
	tmuxBackend  = rigtest.TmuxBackend
	fakeSpawn    = rigtest.FakeSpawn
)

func withRows(mk func(home.Home, string, rows.Options) rows.Backend) func(*Daemon) {
	return func(d *Daemon) { d.cfg.Rows = mk }
}

// call makes one request and fails the test on a refusal.
func rowCall[T any](t testing.TB, c *wire.Client, op string, req any) T {
	t.Helper()
	var resp T
	if err := callErr(c, op, req, &resp); err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	return resp
}

func callErr(c *wire.Client, op string, req, resp any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.Call(ctx, op, req, resp)
}

// waitRow polls workspace.list until the row satisfies ok.
func waitRow(t testing.TB, c *wire.Client, id, what string, ok func(wire.Workspace) bool) wire.Workspace {
	t.Helper()
	var last wire.WorkspaceList
	var found wire.Workspace
	if testutil.Within(10*time.Second, func() bool {
		last = rowCall[wire.WorkspaceList](t, c, wire.OpWorkspaceList, struct{}{})
		for _, w := range last.Workspaces {
			if w.ID == id && ok(w) {
				found = w
				return true
			}
		}
		return false
	}) {
		return found
	}
	t.Fatalf("row %s never showed %s; workspace.list: %+v", id, what, last)
	return wire.Workspace{}
}

// waitScreen polls pty.screen until ok accepts it.
func waitScreen(t testing.TB, c *wire.Client, id, what string, ok func(wire.PtyScreen) bool) wire.PtyScreen {
	t.Helper()
	var last wire.PtyScreen
	if testutil.Within(10*time.Second, func() bool {
		last = rowCall[wire.PtyScreen](t, c, wire.OpPtyScreen, wire.WorkspaceRef{WorkspaceID: id})
		return ok(last)
	}) {
		return last
	}
	t.Fatalf("row %s never showed %s; last screen:\n%s", id, what, strings.Join(last.Lines, "\n"))
	return last
}

func hasLine(s wire.PtyScreen, sub string) bool {
	for _, l := range s.Lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

// TestRowLife runs a fake agent with a handle through the daemon's socket: it is
// listed Ready with its handle, mail to the handle files while it runs, its
// screen shows the prompt, input reaches it, and despawn ends it and frees the
// handle.
func TestRowLife(t *testing.T) {
	t.Parallel()
	for _, k := range backendKinds(t) {
		t.Run(k.Name, func(t *testing.T) {
			r := startRig(t, withRows(k.Make(t)))
			c := r.dial(t)
			spawn, log := fakeSpawn(t, "Repo", "Repo-box")
			id := rowCall[wire.WorkspaceRef](t, c, wire.OpWorkspaceSpawn, spawn).WorkspaceID

			w := waitRow(t, c, id, "Ready", func(w wire.Workspace) bool { return w.Phase == string(rows.Ready) })
			if w.AgentHandle != "Repo-box" || w.Label != "Repo" || w.Agent != "claude" || w.AgentState != registry.StateIdle || w.AgentStatusAt != registry.Stamp(testNow) {
				t.Errorf("workspace.list row = %+v, want Repo-box's row, idle since %s", w, registry.Stamp(testNow))
			}
			if w.Started != testNow.Format(time.RFC3339) {
				t.Errorf("workspace.list says row %s started %q, want %s", id, w.Started, testNow.Format(time.RFC3339))
			}
			doc, err := registry.Read(r.home)
			if err != nil {
				t.Fatal(err)
			}
			if e := doc.Agents["Repo-box"]; e == nil || e.WorkspaceID != id || e.Host != "box" || e.LastSeen != registry.Stamp(testNow) {
				t.Errorf("registry entry = %+v, want bound to %s on box and live", e, id)
			}
			runners, err := ancestry.LoadRunners(r.home, "box")
			if err != nil || runners[id].PID != w.Pid {
				t.Errorf("runner of %s = %+v (err %v), want pid %d", id, runners[id], err, w.Pid)
			}

			filed := rowCall[wire.CommFiled](t, c, wire.OpCommFile, wire.CommFile{From: "bob", To: "Repo-box", Text: "hello row"})
			if !filed.OK {
				t.Fatalf("comm.file = %+v", filed)
			}
			if in := r.inbox(t, "Repo-box"); len(in) != 1 || in[0]["msg"] != "hello row" {
				t.Errorf("inbox of Repo-box = %v, want the one line", in)
			}

			s := waitScreen(t, c, id, "the prompt", func(s wire.PtyScreen) bool {
				return hasLine(s, "❯") && hasLine(s, "row="+id) && hasLine(s, "name=Repo-box")
			})
			if s.Cols != 120 || s.Rows != 40 || len(s.Lines) != 40 || !strings.HasPrefix(s.Lines[s.Cursor.Row], "❯") {
				t.Errorf("screen %dx%d with %d lines, cursor %+v on %q; want 120x40 with the cursor on the prompt", s.Cols, s.Rows, len(s.Lines), s.Cursor, s.Lines[s.Cursor.Row])
			}

			rowCall[wire.Done](t, c, wire.OpPtyInput, wire.PtyInput{WorkspaceID: id, DataB64: base64.StdEncoding.EncodeToString([]byte("hi")), Enter: true})
			rowstest.WaitFile(t, log, "hi\r", 10*time.Second)
			var bad wire.Done
			if err := callErr(c, wire.OpPtyInput, wire.PtyInput{WorkspaceID: id, DataB64: "%%"}, &bad); !isCode(err, wire.CodeBadRequest) {
				t.Errorf("input of bad base64: %v, want %s", err, wire.CodeBadRequest)
			}

			if a := rowCall[wire.AgentJoined](t, c, wire.OpAgentJoin, wire.AgentJoin{Handle: "Repo-box"}); a.Answer != wire.JoinHeld || a.Row != id {
				t.Errorf("clearance while the row runs = %+v, want held_by_row %s", a, id)
			}
			rowCall[wire.Done](t, c, wire.OpWorkspaceDestroy, wire.WorkspaceRef{WorkspaceID: id})
			if a := rowCall[wire.AgentJoined](t, c, wire.OpAgentJoin, wire.AgentJoin{Handle: "Repo-box"}); a.Answer != wire.JoinOK {
				t.Errorf("clearance after despawn = %+v, want ok", a)
			}
			if runners, err := ancestry.LoadRunners(r.home, "box"); err != nil || len(runners) != 0 {
				t.Errorf("runners after despawn = %v (err %v), want none", runners, err)
			}
			if err := callErr(c, wire.OpPtyScreen, wire.WorkspaceRef{WorkspaceID: "ws-nosuchrow"}, &s); !isCode(err, "no_row") {
				t.Errorf("screen of no row: %v, want no_row", err)
			}
		})
	}
}

func isCode(err error, code string) bool {
	re, ok := wire.RefusalOf(err)
	return ok && re.Code == code
}

// TestAgentJoinMoves gives one handle to a newer row: the registry binds it to
// that row, the older row is listed without it, and clearance names the holder.
func TestAgentJoinMoves(t *testing.T) {
	r := startRig(t, withRows(backendKinds(t)[0].Make(t)))
	c := r.dial(t)
	first, _ := fakeSpawn(t, "first", "Repo-box")
	a := rowCall[wire.WorkspaceRef](t, c, wire.OpWorkspaceSpawn, first).WorkspaceID
	second, _ := fakeSpawn(t, "second", "")
	b := rowCall[wire.WorkspaceRef](t, c, wire.OpWorkspaceSpawn, second).WorkspaceID

	tests := []struct {
		name string
		req  wire.AgentJoin
		want wire.AgentJoined
		code string
	}{
		{"a newer declaration moves the handle", wire.AgentJoin{WorkspaceID: b, Handle: "Repo-box"}, wire.AgentJoined{Answer: wire.JoinAccepted, Row: b, MovedFrom: a}, ""},
		{"declaring again moves nothing", wire.AgentJoin{WorkspaceID: b, Handle: "Repo-box"}, wire.AgentJoined{Answer: wire.JoinAccepted, Row: b}, ""},
		{"clearance names the holder", wire.AgentJoin{Handle: "Repo-box"}, wire.AgentJoined{Answer: wire.JoinHeld, Row: b}, ""},
		{"a handle no row holds is clear", wire.AgentJoin{Handle: "bob"}, wire.AgentJoined{Answer: wire.JoinOK}, ""},
		{"a row this daemon does not run", wire.AgentJoin{WorkspaceID: "ws-nosuchrow", Handle: "Repo-box"}, wire.AgentJoined{}, "no_row"},
		{"a bad handle", wire.AgentJoin{WorkspaceID: b, Handle: "../x"}, wire.AgentJoined{}, wire.CodeBadHandle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got wire.AgentJoined
			err := callErr(c, wire.OpAgentJoin, tt.req, &got)
			if tt.code != "" {
				if !isCode(err, tt.code) {
					t.Fatalf("agent.join %+v: %v, want code %s", tt.req, err, tt.code)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("agent.join %+v = %+v, %v; want %+v", tt.req, got, err, tt.want)
			}
		})
	}
	if w := waitRow(t, c, a, "Ready", func(w wire.Workspace) bool { return w.Phase == string(rows.Ready) }); w.AgentHandle != "" {
		t.Errorf("the displaced row still lists @%s", w.AgentHandle)
	}
	if w := waitRow(t, c, b, "Ready", func(w wire.Workspace) bool { return w.Phase == string(rows.Ready) }); w.AgentHandle != "Repo-box" {
		t.Errorf("the newer row lists @%q, want Repo-box", w.AgentHandle)
	}
	// A row that was removed frees the handle even though the registry still
	// binds it: only a row that has not ended holds.
	rowCall[wire.Done](t, c, wire.OpWorkspaceDestroy, wire.WorkspaceRef{WorkspaceID: b})
	if got := rowCall[wire.AgentJoined](t, c, wire.OpAgentJoin, wire.AgentJoin{Handle: "Repo-box"}); got.Answer != wire.JoinOK {
		t.Errorf("clearance after the holder was removed = %+v, want ok", got)
	}
	var refused wire.AgentJoined
	if err := callErr(c, wire.OpAgentJoin, wire.AgentJoin{WorkspaceID: b, Handle: "Repo-box"}, &refused); !isCode(err, "no_row") {
		t.Errorf("join into a removed row: %v, want no_row", err)
	}
}

// TestTmuxRowSurvivesRestart stops the daemon under a running tmux row and
// starts another on the same home: the row is found again, still Ready with its
// handle, and its runner is recorded again.
func TestTmuxRowSurvivesRestart(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	mk := tmuxBackend(t)
	r := startRig(t, withRows(mk))
	c := r.dial(t)
	spawn, _ := fakeSpawn(t, "Repo", "Repo-box")
	id := rowCall[wire.WorkspaceRef](t, c, wire.OpWorkspaceSpawn, spawn).WorkspaceID
	before := waitRow(t, c, id, "Ready", func(w wire.Workspace) bool { return w.Phase == string(rows.Ready) })
	c.Close()
	if err := r.stop(t); err != nil {
		t.Fatal(err)
	}
	runners, err := ancestry.LoadRunners(r.home, "box")
	if err != nil {
		t.Fatal(err)
	}
	if err := ancestry.ForgetRunner(r.home, "box", id); err != nil {
		t.Fatal(err)
	}

	r2 := startOn(t, r.home, withRows(mk))
	c2 := r2.dial(t)
	after := waitRow(t, c2, id, "Ready", func(w wire.Workspace) bool { return w.Phase == string(rows.Ready) })
	if after.Pid != before.Pid || after.AgentHandle != "Repo-box" || after.Label != "Repo" {
		t.Errorf("after the restart the row is %+v, want %+v", after, before)
	}
	again, err := ancestry.LoadRunners(r.home, "box")
	if err != nil || again[id] != runners[id] {
		t.Errorf("runner after the restart = %+v (err %v), want %+v", again[id], err, runners[id])
	}
	if got := rowCall[wire.AgentJoined](t, c2, wire.OpAgentJoin, wire.AgentJoin{Handle: "Repo-box"}); got.Answer != wire.JoinHeld || got.Row != id {
		t.Errorf("clearance after the restart = %+v, want held_by_row %s", got, id)
	}
	rowCall[wire.Done](t, c2, wire.OpWorkspaceDestroy, wire.WorkspaceRef{WorkspaceID: id})
}

// TestSpawnThatFailsGivesTheHandleBack: a row whose program cannot start is
// refused, and its handle is as it was before: absent when it was new, still
// bound to the row that held it otherwise, so mail never files to a row that
// never ran.
func TestSpawnThatFailsGivesTheHandleBack(t *testing.T) {
	t.Parallel()
	for _, k := range backendKinds(t) {
		t.Run(k.Name, func(t *testing.T) {
			r := startRig(t, withRows(k.Make(t)))
			c := r.dial(t)
			missing := wire.WorkspaceSpawn{Label: "broken", Cwd: t.TempDir(), Argv: []string{"/no/such/agent-program"}}

			missing.Handle = "fresh"
			var ref wire.WorkspaceRef
			if err := callErr(c, wire.OpWorkspaceSpawn, missing, &ref); err == nil || !strings.Contains(err.Error(), "agent-program") {
				t.Fatalf("spawn of a missing program = %+v, %v; want it refused naming the program", ref, err)
			}
			if doc, err := registry.Read(r.home); err != nil || doc.Agents["fresh"] != nil {
				t.Errorf("after the failed spawn @fresh is %+v (err %v), want no entry", doc.Agents["fresh"], err)
			}

			good, _ := fakeSpawn(t, "Repo", "Repo-box")
			id := rowCall[wire.WorkspaceRef](t, c, wire.OpWorkspaceSpawn, good).WorkspaceID
			waitRow(t, c, id, "Ready", func(w wire.Workspace) bool { return w.Phase == string(rows.Ready) })
			missing.Handle = "Repo-box"
			if err := callErr(c, wire.OpWorkspaceSpawn, missing, &ref); err == nil {
				t.Fatalf("spawn of a missing program = %+v, want it refused", ref)
			}
			doc, err := registry.Read(r.home)
			if err != nil {
				t.Fatal(err)
			}
			if e := doc.Agents["Repo-box"]; e == nil || e.WorkspaceID != id {
				t.Fatalf("after the failed spawn @Repo-box is %+v, want still bound to %s", e, id)
			}
			if got := rowCall[wire.AgentJoined](t, c, wire.OpAgentJoin, wire.AgentJoin{Handle: "Repo-box"}); got.Answer != wire.JoinHeld || got.Row != id {
				t.Errorf("clearance = %+v, want held_by_row %s", got, id)
			}
			if filed := rowCall[wire.CommFiled](t, c, wire.OpCommFile, wire.CommFile{From: "bob", To: "Repo-box", Text: "still here"}); !filed.OK {
				t.Errorf("comm.file to the row that kept its handle = %+v", filed)
			}
			rowCall[wire.Done](t, c, wire.OpWorkspaceDestroy, wire.WorkspaceRef{WorkspaceID: id})
		})
	}
}

// A row whose program prints one line and exits at once is listed Stopped with
// its exit code, and its screen still shows the line, on every backend.
//
// The program lingers a moment after its last words: tmux 3.3a drops the
// output of a program that exits at once about one time in eight under load
// (60 panes of `echo FATAL; exit 3` with remain-on-exit: 7 showed only "Pane
// is dead"), which no capture can bring back.
func TestExitedRowKeepsItsScreen(t *testing.T) {
	t.Parallel()
	for _, k := range backendKinds(t) {
		t.Run(k.Name, func(t *testing.T) {
			r := startRig(t, withRows(k.Make(t)))
			c := r.dial(t)
			spawn := wire.WorkspaceSpawn{Label: "fatal", Agent: "other", Cwd: t.TempDir(), Argv: []string{"/bin/sh", "-c", "echo FATAL: no key; sleep 0.5; exit 3"}}
			id := rowCall[wire.WorkspaceRef](t, c, wire.OpWorkspaceSpawn, spawn).WorkspaceID
			w := waitRow(t, c, id, "Stopped", func(w wire.Workspace) bool { return w.Phase == string(rows.Stopped) })
			if w.ExitCode == nil || *w.ExitCode != 3 {
				t.Errorf("exit code %v, want 3", w.ExitCode)
			}
			// No screen shown may carry tmux's own "Pane is dead" line.
			waitScreen(t, c, id, "what the program left", func(s wire.PtyScreen) bool {
				if hasLine(s, "Pane is dead") {
					t.Fatalf("the exited row's screen shows tmux's dead line:\n%s", strings.Join(s.Lines, "\n"))
				}
				return hasLine(s, "FATAL: no key")
			})
		})
	}
}
