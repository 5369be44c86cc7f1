//go:build !windows

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
)

// fakeAgent stands for an agent: it says it is ready, then answers each line
// typed into it: "poll" reads its mail as its handle, "exit N" exits N, and
// anything else is echoed.
const fakeAgent = `echo AGENT-READY; while IFS= read -r l; do case $l in poll) "$SOTD_BIN" poll;; exit*) exit ${l#exit };; *) echo "got:$l";; esac; done`

var rowID = regexp.MustCompile(`ws-[a-z2-7]{10}`)

// onlyRow is the id of box b's one row. sotd run prints the id as it starts
// the row, but a tmux client that starts at once can flush that line off the
// terminal before the test reads it.
func onlyRow(t *testing.T, b *box) string {
	t.Helper()
	ids := rowID.FindAllString(b.must("", "rows"), -1)
	if len(ids) != 1 {
		t.Fatalf("the box runs rows %q, want one", ids)
	}
	return ids[0]
}

// TestRun starts an agent with sotd run on a terminal the test holds, on each
// backend. With no daemon, or from inside a row, nothing starts. Then the row is listed under the handle sotd join derives in the folder,
// mail to that handle reaches the agent, a detach leaves the row running and
// says how to come back, sotd attach comes back, and the agent's exit ends
// sotd run with the agent's exit code and removes the row.
func TestRun(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"pty", "tmux"} {
		t.Run(backend, func(t *testing.T) {
			b := newBox(t, "box")
			detach := "\x1d"
			if backend == "pty" {
				b.extra = append(b.extra, "PATH="+binsOf(t, "sh", "sleep"))
			} else {
				detach = "\x02d"
				if _, err := exec.LookPath("tmux"); err != nil {
					if os.Getenv("CI") != "" {
						t.Fatalf("CI must test the tmux backend: %v", err)
					}
					t.Skip("tmux is not installed")
				}
			}
			refused := func(env []string, line string, argv ...string) {
				t.Helper()
				if argv == nil {
					argv = []string{"/bin/sh", "-c", fakeAgent}
				}
				term, done := onTerminal(t, b, t.TempDir(), env, append([]string{"run", "--"}, argv...)...)
				waitEnd(t, term, done, 1)
				if !testutil.Within(5*time.Second, func() bool { return term.Contains(line) }) {
					t.Fatalf("no line %q on the terminal:\n%s", line, term.String())
				}
			}
			refused(nil, "FAILED: no sotd daemon found; start one with sotd serve (looked at "+b.socket()+"); nothing was started")
			b.serve()
			refused([]string{"SOT_WORKSPACE_ID=ws-other"}, "FAILED: this shell runs in row ws-other, and sotd run puts a terminal outside any row on a new one; nothing was started")
			refused(nil, "/no/such/agent: no such file or directory; no row was started", "/no/such/agent")
			b.extra = nil
			proj := filepath.Join(t.TempDir(), "Proj")
			if err := os.Mkdir(proj, 0o700); err != nil {
				t.Fatal(err)
			}
			handle := registry.Tiers(proj, "box")[0]
			// The agent finds sotd through the environment sotd run passes on.
			env := []string{"SOTD_BIN=" + sotdBin}
			run := func() (*terminal, <-chan error, string) {
				t.Helper()
				term, done := onTerminal(t, b, proj, env, "run", "--", "/bin/sh", "-c", fakeAgent)
				if !testutil.Within(20*time.Second, func() bool { return term.Contains("AGENT-READY") }) {
					t.Fatalf("no agent's screen within 20s:\n%s", term.String())
				}
				return term, done, onlyRow(t, b)
			}
			typeLine := func(term *terminal, line string) {
				t.Helper()
				if _, err := term.tty.Write([]byte(line + "\r")); err != nil {
					t.Fatal(err)
				}
			}

			term, done, id := run()
			if got := b.must("", "rows"); !regexp.MustCompile(`(?m)^` + id + ` +(Starting|Ready) +other +@` + handle + ` +Proj$`).MatchString(got) {
				t.Fatalf("the row is not listed under @%s:\n%s", handle, got)
			}
			if got := b.must("", "rows", "screen", id); !regexp.MustCompile(`(?m)^cols=130 rows=45 `).MatchString(got) {
				t.Fatalf("the row is not the size of the terminal sotd run runs on (130x45):\n%s", got)
			}
			b.must("bob", "join")
			b.must("bob", "send", "@"+handle, "hello agent")
			typeLine(term, "poll")
			testutil.Eventually(t, 10*time.Second, "the mail on the agent's screen", func() bool { return term.Contains("hello agent") })

			pressUntilEnd(t, term, done, detach, 0)
			testutil.Eventually(t, 5*time.Second, "the detach line", func() bool {
				return term.Contains("detached from row " + id + "; it runs on (sotd attach " + id + " goes back)")
			})
			if got := b.must("", "rows"); !strings.Contains(got, id+"  Ready") {
				t.Fatalf("the row does not run on after the detach:\n%s", got)
			}

			term, done = attach(t, b, id)
			testutil.Eventually(t, 20*time.Second, "the row again", func() bool { return term.Contains("hello agent") })
			typeLine(term, "again")
			testutil.Eventually(t, 10*time.Second, "the agent's answer after the attach", func() bool { return term.Contains("got:again") })
			pressUntilEnd(t, term, done, detach, 0)
			b.must("", "despawn", id)

			// The same folder again: the handle is free, and the agent's exit
			// is sotd run's and removes the row.
			term, done, id = run()
			if got := b.must("", "rows"); !strings.Contains(got, "@"+handle) {
				t.Fatalf("the second row is not listed under @%s:\n%s", handle, got)
			}
			typeLine(term, "exit 3")
			waitEnd(t, term, done, 3)
			testutil.Eventually(t, 5*time.Second, "the line that the agent exited", func() bool {
				return term.Contains("sotd run: row " + id + " ended: its program exited with status 3; the row is removed")
			})
			if got := b.must("", "rows"); !strings.Contains(got, "no rows") {
				t.Fatalf("the row stays after its agent exited:\n%s", got)
			}

			// An agent that exits before the terminal is on it still gives its code.
			term, done = onTerminal(t, b, proj, nil, "run", "--", "/bin/sh", "-c", "exit 5")
			waitEnd(t, term, done, 5)
		})
	}
}

// pressUntilEnd presses key until the command on term ends, and requires its
// exit code: a tmux client still reading its terminal's answers to its
// start-up queries can take a key as part of one (seen on a loaded machine).
func pressUntilEnd(t *testing.T, term *terminal, done <-chan error, key string, code int) {
	t.Helper()
	var ended bool
	var err error
	testutil.Within(20*time.Second, func() bool {
		if _, werr := term.tty.Write([]byte(key)); werr != nil {
			t.Fatal(werr)
		}
		select {
		case err = <-done:
			ended = true
		case <-time.After(500 * time.Millisecond):
		}
		return ended
	})
	if !ended {
		t.Fatalf("the command did not end after %q:\n%s", key, term.String())
	}
	checkExit(t, term, err, code)
}

// waitEnd waits for the command on term to end with code.
func waitEnd(t *testing.T, term *terminal, done <-chan error, code int) {
	t.Helper()
	select {
	case err := <-done:
		checkExit(t, term, err, code)
	case <-time.After(20 * time.Second):
		t.Fatalf("the command did not end:\n%s", term.String())
	}
}

func checkExit(t *testing.T, term *terminal, err error, code int) {
	t.Helper()
	got := 0
	if ee, ok := err.(*exec.ExitError); ok {
		got = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("the command: %v\n%s", err, term.String())
	}
	if got != code {
		t.Fatalf("the command exited %d, want %d:\n%s", got, code, term.String())
	}
}
