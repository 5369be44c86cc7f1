//go:build !windows

package rows_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/rows/rowstest"
)

// fakeAgent is the path of the fake agent TestMain built.
var fakeAgent string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rows-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fakeAgent, err = rowstest.BuildFakeAgent(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goroutines left behind: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// kind is one backend under test.
type kind struct {
	name string
	make func(t testing.TB, opt rows.Options) rows.Backend
}

// kinds is every backend this box can run: the PTY always, tmux where it is
// installed (CI installs it).
func kinds(t testing.TB) []kind {
	ks := []kind{{"pty", newPTY}}
	if _, err := exec.LookPath("tmux"); err == nil {
		ks = append(ks, kind{"tmux", newTmux})
	} else if os.Getenv("CI") != "" {
		t.Fatalf("tmux is not installed, and CI must test the tmux backend: %v", err)
	} else {
		t.Logf("tmux is not installed: only the PTY backend is tested")
	}
	return ks
}

// eachBackend runs f once per backend, in parallel.
func eachBackend(t *testing.T, opt rows.Options, f func(t *testing.T, b rows.Backend)) {
	for _, k := range kinds(t) {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			// The test's temp folder is made before the backend, so it is removed
			// after the backend's cleanup has ended every row: an agent starting
			// late under load would otherwise make its log in a folder being removed.
			t.TempDir()
			f(t, k.make(t, opt))
		})
	}
}

func newPTY(t testing.TB, opt rows.Options) rows.Backend {
	b := rows.NewPTY(opt)
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("close the PTY backend: %v", err)
		}
	})
	return b
}

// tmuxHome is a comm home for one test, short enough for a socket path in it.
func tmuxHome(t testing.TB) home.Home {
	dir := testutil.ShortDir(t, "rows")
	return home.Home{Dir: dir}
}

func newTmux(t testing.TB, opt rows.Options) rows.Backend {
	return newTmuxAt(t, tmuxHome(t), opt)
}

// newTmuxAt is a tmux backend on h's socket; the test's end kills the server,
// which the rows would otherwise outlive.
func newTmuxAt(t testing.TB, h home.Home, opt rows.Options) *rows.Tmux {
	b, err := rows.NewTmux(h, "box", opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd := exec.Command("tmux", "-S", b.Socket(), "kill-server")
		if out, err := cmd.CombinedOutput(); err != nil && len(out) > 0 && !isNoServer(string(out)) {
			t.Logf("kill the tmux server: %v: %s", err, out)
		}
	})
	return b
}

func isNoServer(out string) bool {
	return len(out) >= 9 && (out[:9] == "no server" || out[:9] == "error con")
}

// agentSpec is a fake agent row whose byte log is returned with it.
func agentSpec(t *testing.T, env ...string) (rows.Spec, string) {
	dir := t.TempDir()
	log := filepath.Join(dir, "bytes.log")
	return rows.Spec{
		Label:  "Repo",
		Handle: "Repo-box",
		Agent:  rows.Claude,
		Cwd:    dir,
		Argv:   []string{fakeAgent},
		Env:    append([]string{rowstest.EnvLog + "=" + log}, env...),
	}, log
}

// groupGone reports whether no process of the group pgid is left running. A
// killed member whose parent died is a zombie until init reaps it, and
// kill(2) still finds a zombie, so on Linux /proc tells the dead apart.
func groupGone(pgid int) bool {
	if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		return true
	}
	if runtime.GOOS != "linux" {
		return false
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			return false
		}
	}
	return true
}

// processGone reports whether the process pid is gone (and reaped).
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// startAtPrompt starts the fake agent as a row of b and waits until it shows
// its prompt; it returns the row and the agent's byte log.
func startAtPrompt(t *testing.T, b rows.Backend) (rows.RowInfo, string) {
	t.Helper()
	spec, log := agentSpec(t)
	info, err := b.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	rowstest.WaitScreen(t, b, info.Spec.ID, wait, "the prompt", atPrompt(""))
	return info, log
}
