//go:build !windows

package wake

import (
	"os/exec"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/rows/rowstest"
	"github.com/sotcomm/sotd/screen"
)

// A real tmux row at a free prompt that has held still for StillFor by the
// time its mail is counted gets the notice at the wake's first look, as a PTY
// row does: its screen says since when it has been still, where looks alone
// would wait StillFor more after the first.
func TestLoopTypesIntoAStillTmuxRowAtItsFirstLook(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skipf("tmux is not installed: %v", err)
	}
	agent, err := rowstest.BuildFakeAgent(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := rows.NewTmux(home.Home{Dir: testutil.ShortDir(t, "wake")}, "box", rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = b.Close()
		_ = exec.Command("tmux", "-S", b.Socket(), "kill-server").Run()
	})
	info, err := b.Start(rows.Spec{Label: "Repo", Handle: "Repo-box", Agent: rows.Claude, Cwd: t.TempDir(), Argv: []string{agent}})
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Agent: rows.Claude}
	var last string
	var since time.Time
	rowstest.WaitScreen(t, b, info.Spec.ID, 10*time.Second, "the free prompt, unchanged for StillFor", func(s *screen.Screen) bool {
		if region := StillRegion(s, opt); region != last {
			last, since = region, time.Now()
		}
		return Check(s, opt).Kind == Free && time.Since(since) >= StillFor
	})

	in := newInboxes()
	in.mail("Repo-box", 1)
	r := &backendRows{b: b}
	l := &Loop{Rows: r, Unread: in.Unread, Entry: in.Entry}
	l.start()
	l.step()
	if len(r.wrote) != 1 || r.wrote[0] != registry.WakeNotice {
		t.Fatalf("the first look wrote %q, want the notice", r.wrote)
	}
}

// backendRows is a rows backend as the loop sees it, keeping what it types.
type backendRows struct {
	b     rows.Backend
	wrote []string
}

func (r *backendRows) List() []Row {
	infos, _ := r.b.List()
	var out []Row
	for _, i := range infos {
		out = append(out, Row{ID: i.Spec.ID, Handle: i.Spec.Handle, Agent: i.Spec.Agent, Ready: i.Phase == rows.Ready})
	}
	return out
}

func (r *backendRows) Screen(id string) (*screen.Screen, error) { return r.b.Screen(id) }

func (r *backendRows) Input(id string, data []byte) error {
	r.wrote = append(r.wrote, string(data))
	return r.b.Input(id, data)
}
