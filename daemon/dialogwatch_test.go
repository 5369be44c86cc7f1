//go:build !windows

package daemon

import (
	"encoding/base64"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/wire"
)

// TestDialogWatch runs a fake Claude row that shows a permission dialog: while
// its turn runs the daemon records the dialog (the row reads blocked), and once
// the dialog is answered it records resumed. With no turn running, a dialog on
// the screen is not read at all.
func TestDialogWatch(t *testing.T) {
	t.Parallel()
	for _, k := range backendKinds(t) {
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			r := startRig(t, withRows(k.Make(t)), func(d *Daemon) { d.dialogEvery = 50 * time.Millisecond })
			c := r.dial(t)
			spawn, _ := fakeSpawn(t, "Repo", "Repo-box")
			id := rowCall[wire.WorkspaceRef](t, c, wire.OpWorkspaceSpawn, spawn).WorkspaceID
			waitRow(t, c, id, "Ready", func(w wire.Workspace) bool { return w.Phase == string(rows.Ready) })
			waitScreen(t, c, id, "the prompt", func(s wire.PtyScreen) bool { return hasLine(s, "❯") })
			typeLine := func(text string, enter bool) {
				rowCall[wire.Done](t, c, wire.OpPtyInput, wire.PtyInput{WorkspaceID: id, DataB64: base64.StdEncoding.EncodeToString([]byte(text)), Enter: enter})
			}
			entry := func() *registry.Entry {
				e, _, err := registry.Lookup(r.home, "Repo-box")
				if err != nil || e == nil {
					t.Fatalf("Repo-box's entry: %v (err %v)", e, err)
				}
				return e
			}
			waitEntry := func(what string, ok func(*registry.Entry) bool) {
				t.Helper()
				if !testutil.Within(10*time.Second, func() bool { return ok(entry()) }) {
					t.Fatalf("Repo-box never showed %s: %+v", what, entry())
				}
			}

			// No turn runs: the dialog stays unread by the watch.
			typeLine("/dialog", true)
			waitScreen(t, c, id, "the dialog", func(s wire.PtyScreen) bool { return hasLine(s, "Do you want to proceed?") })
			time.Sleep(300 * time.Millisecond) // six periods of the watch
			if e := entry(); e.Dialog != "" || e.State != registry.StateIdle {
				t.Fatalf("with no turn running the dialog was recorded: %+v", e)
			}
			typeLine("1", false)
			waitScreen(t, c, id, "the prompt again", func(s wire.PtyScreen) bool { return !hasLine(s, "Do you want to proceed?") })

			// A turn runs, and the agent asks: blocked on the dialog, then back to
			// working once it is answered.
			if err := registry.WriteStatus(r.home, "Repo-box", registry.Status{Verb: registry.VerbPrompt, Text: registry.FloorUser, HasText: true}, testNow, registry.Ruled()); err != nil {
				t.Fatal(err)
			}
			typeLine("/dialog", true)
			waitEntry("the dialog", func(e *registry.Entry) bool {
				return e.Dialog == "Do you want to proceed?" && e.State == registry.StateBlocked && e.Summary == "Do you want to proceed?"
			})
			typeLine("1", false)
			waitEntry("resumed", func(e *registry.Entry) bool { return e.Dialog == "" && e.State == registry.StateWorking })
			if w := waitRow(t, c, id, "working", func(w wire.Workspace) bool { return w.AgentState == registry.StateWorking }); w.AgentHandle != "Repo-box" {
				t.Errorf("row lists @%q", w.AgentHandle)
			}
		})
	}
}
