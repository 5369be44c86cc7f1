//go:build !windows

package integration

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/sotcomm/sotd/internal/testutil"
)

// echoRow prints a mark, then echoes each line typed into it.
const echoRow = `echo ROW-READY; while IFS= read -r l; do echo "got:$l"; done`

// TestAttach attaches a real terminal (a pty the test holds) to a row of each
// backend: the entry line says how to detach, the terminal shows the row and
// types into it, the detach key leaves, and the row runs on.
func TestAttach(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		backend string
		entry   []string // any one says how to detach
		detach  string
	}{
		{"pty", []string{"press Ctrl-] to detach; the row keeps running"}, "\x1d"},
		// A starting tmux client may flush the terminal's output before the
		// test has read the entry line; its own status message says it too.
		{"tmux", []string{"press C-b d to detach; the row keeps running", "sotd attach: C-b d detaches; the row keeps running"}, "\x02d"},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			b := newBox(t, "box")
			if tc.backend == "pty" {
				// A daemon that finds no tmux runs its rows on the built-in PTY.
				b.extra = append(b.extra, "PATH="+binsOf(t, "sh", "sleep"))
			} else if _, err := exec.LookPath("tmux"); err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("CI must test the tmux backend: %v", err)
				}
				t.Skip("tmux is not installed")
			}
			b.serve()
			id := strings.TrimSpace(b.must("", "spawn", "--label", "att", "--", "/bin/sh", "-c", echoRow))
			b.extra = nil
			if got := b.must("", "rows", "--json"); !strings.Contains(got, `"backend": "`+tc.backend+`"`) {
				t.Fatalf("the row does not run on %s:\n%s", tc.backend, got)
			}

			term, done := attach(t, b, id)
			testutil.Eventually(t, 20*time.Second, "the entry line and the row's screen", func() bool {
				return slices.ContainsFunc(tc.entry, term.Contains) && term.Contains("ROW-READY")
			})
			// A line and the detach key in one write, as a fast typist's keys
			// reach a busy tmux server or an ssh link delivers them: the row
			// gets the line, and the key detaches. tmux's paste heuristic once
			// took the key for pasted text and typed ^B d into the row.
			if _, err := term.tty.Write([]byte("hello\r" + tc.detach)); err != nil {
				t.Fatal(err)
			}
			pressUntilEnd(t, term, done, tc.detach, 0)
			testutil.Eventually(t, 5*time.Second, "the detach line", func() bool {
				return term.Contains("detached from row " + id + "; it runs on")
			})

			rows := b.must("", "rows")
			if !strings.Contains(rows, id+"  Ready") {
				t.Errorf("the row does not run on after the detach:\n%s", rows)
			}
			var screen string
			if !testutil.Within(5*time.Second, func() bool {
				screen = b.must("", "rows", "screen", id)
				return strings.Contains(screen, "got:hello")
			}) || strings.Contains(screen, "^B") {
				t.Errorf("the row's screen does not show the line typed while attached, or shows the detach key:\n%s", screen)
			}
			// A row whose program exits while attached ends the attachment (a
			// tmux client too, though the dead pane stays) and says how.
			term, done = attach(t, b, id)
			testutil.Eventually(t, 10*time.Second, "the row's screen again", func() bool { return term.Contains("got:hello") })
			if _, err := term.tty.Write([]byte{0x04}); err != nil { // end of input: the row's loop ends
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("sotd attach as the row ended: %v\n%s", err, term.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("sotd attach did not end with its row:\n%s", term.String())
			}
			testutil.Eventually(t, 5*time.Second, "the line that the row ended", func() bool {
				return term.Contains("row " + id + " stopped: its program exited with status 0; sotd rows screen " + id + " shows its last screen")
			})
		})
	}
}

// terminal is the test's side of a pty that sotd attach runs on.
type terminal struct {
	testutil.SyncBuffer
	tty *os.File // the master: what is written here is typed
}

// attach runs sotd attach id on a new pty of 130x45 (larger than the row) and
// returns the terminal and the command's end.
func attach(t *testing.T, b *box, id string) (*terminal, <-chan error) {
	t.Helper()
	return onTerminal(t, b, t.TempDir(), nil, "attach", id)
}

// onTerminal runs sotd args in dir, with env added to the box's, on a new pty
// of 130x45 and returns the terminal and the command's end.
func onTerminal(t *testing.T, b *box, dir string, env []string, args ...string) (*terminal, <-chan error) {
	t.Helper()
	cmd := exec.Command(sotdBin, args...)
	cmd.Env = append(append(b.env(""), "TERM=xterm-256color"), env...)
	cmd.Dir = dir
	return startTerminal(t, cmd)
}

// startTerminal starts cmd on a new pty of 130x45, its controlling terminal,
// and returns the terminal and the command's end; the test's end kills it.
func startTerminal(t *testing.T, cmd *exec.Cmd) (*terminal, <-chan error) {
	t.Helper()
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 130, Rows: 45})
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{tty: tty}
	copied := make(chan struct{})
	go func() { defer close(copied); _, _ = io.Copy(term, tty) }()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		tty.Close()
		<-copied
	})
	return term, done
}

// binsOf is a folder of links to the named programs only: a PATH on
// which no tmux is found.
func binsOf(t *testing.T, names ...string) string {
	dir := t.TempDir()
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
