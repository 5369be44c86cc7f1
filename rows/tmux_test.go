//go:build !windows

package rows_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/rows/rowstest"
)

func needTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("tmux is not installed, and CI must test the tmux backend: %v", err)
		}
		t.Skipf("tmux is not installed: %v", err)
	}
}

// A restarted daemon is a second backend on the same home: it finds the row
// the first started, with its spec, and can read, type into and stop it.
func TestTmuxRowSurvivesDaemonRestart(t *testing.T) {
	needTmux(t)
	h := tmuxHome(t)
	first := newTmuxAt(t, h, rows.Options{})
	spec, log := agentSpec(t, rowstest.EnvDraft+"=kept")
	started, err := first.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	rowstest.WaitScreen(t, first, started.Spec.ID, wait, "the draft", atPrompt("kept"))

	sock := first.Socket()
	if want := filepath.Join(h.Dir, "run", "box", "tmux", "rows.sock"); sock != want {
		t.Errorf("socket %s, want %s", sock, want)
	}
	fi, err := os.Stat(filepath.Dir(sock))
	if err != nil || fi.Mode().Perm() != home.DirMode {
		t.Errorf("the socket's folder: %v, %v; want mode %v", fi, err, home.DirMode)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	second := newTmuxAt(t, h, rows.Options{})
	found, err := second.Discover()
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 {
		t.Fatalf("Discover found %d rows, want 1: %+v", len(found), found)
	}
	got := found[0]
	if !reflect.DeepEqual(got.Spec, started.Spec) {
		t.Errorf("discovered spec %+v, want %+v", got.Spec, started.Spec)
	}
	if got.Phase != rows.Ready || got.Pid != started.Pid {
		t.Errorf("discovered %+v, want Ready with pid %d", got, started.Pid)
	}
	rowstest.WaitScreen(t, second, got.Spec.ID, wait, "the draft", atPrompt("kept"))
	if err := second.Input(got.Spec.ID, []byte("!")); err != nil {
		t.Fatal(err)
	}
	rowstest.WaitFile(t, log, "!", wait)
	if err := second.Stop(got.Spec.ID); err != nil {
		t.Fatal(err)
	}
	if info, err := first.Info(got.Spec.ID); err != nil || info.Phase != rows.Stopped {
		t.Errorf("the first backend sees %+v, %v; want Stopped", info, err)
	}
}

// A session a person made on the private socket is not a row.
func TestTmuxIgnoresForeignSessions(t *testing.T) {
	needTmux(t)
	b := newTmuxAt(t, tmuxHome(t), rows.Options{})
	spec, _ := agentSpec(t)
	if _, err := b.Start(spec); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tmux", "-S", b.Socket(), "new-session", "-d", "-s", "mine", "sleep", "300").CombinedOutput(); err != nil {
		t.Fatalf("make a foreign session: %v: %s", err, out)
	}
	list, err := b.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Spec.Label != "Repo" {
		t.Errorf("List = %+v, want only the daemon's row", list)
	}
	if _, err := b.Info("mine"); rows.Code(err) != "no_row" {
		t.Errorf("Info of a foreign session = %v, want no_row", err)
	}
	if _, err := b.Screen("mine"); rows.Code(err) != "no_row" {
		t.Errorf("Screen of a foreign session = %v, want no_row", err)
	}
	if err := b.Input("mine", []byte("x")); rows.Code(err) != "no_row" {
		t.Errorf("Input into a foreign session = %v, want no_row", err)
	}
}

func TestChoosePrefersTmux(t *testing.T) {
	needTmux(t)
	b := rows.Choose(tmuxHome(t), "box", rows.Options{})
	if b.Name() != "tmux" {
		t.Errorf("Choose on a box with tmux = %s", b.Name())
	}
}
