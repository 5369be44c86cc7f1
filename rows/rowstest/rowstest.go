// Package rowstest helps tests that run rows: it builds the fake agent
// (rows/internal/fakeagent) and waits for what a row shows.
package rowstest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/screen"
)

// poll is how often a wait asks a row again: each ask of a tmux row is a
// capture-pane process.
const poll = 20 * time.Millisecond

// The fake agent's settings; its package doc says what each does.
const (
	EnvLog     = "FAKEAGENT_LOG"
	EnvDraft   = "FAKEAGENT_DRAFT"
	EnvSuggest = "FAKEAGENT_SUGGEST"
	EnvBusy    = "FAKEAGENT_BUSY"
	EnvGlyph   = "FAKEAGENT_GLYPH"
	EnvAskPos  = "FAKEAGENT_ASKPOS"
)

// BuildFakeAgent compiles the fake agent into dir and returns its path. Call it
// once from TestMain: a build takes a second or more.
func BuildFakeAgent(dir string) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out := filepath.Join(dir, "fakeagent")
	if runtime.GOOS == "windows" {
		out += ".exe"
	}
	cmd := exec.Command(goBin, "build", "-o", out, "github.com/sotcomm/sotd/rows/internal/fakeagent")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the fake agent: %w\n%s", err, msg)
	}
	return out, nil
}

// WaitScreen polls the row's screen until ok accepts it, and fails the test
// with the last screen when timeout passes first.
func WaitScreen(tb testing.TB, b rows.Backend, id string, timeout time.Duration, what string, ok func(*screen.Screen) bool) *screen.Screen {
	tb.Helper()
	var last *screen.Screen
	var lastErr error
	if !testutil.WithinEvery(timeout, poll, func() bool {
		last, lastErr = b.Screen(id)
		return lastErr == nil && ok(last)
	}) {
		tb.Fatalf("row %s (%s): no %s within %v; last error %v; last screen:\n%s", id, b.Name(), what, timeout, lastErr, Text(last))
	}
	return last
}

// WaitPhase polls the row's phase until it is want.
func WaitPhase(tb testing.TB, b rows.Backend, id string, timeout time.Duration, want rows.Phase) rows.RowInfo {
	tb.Helper()
	var info rows.RowInfo
	var err error
	if !testutil.WithinEvery(timeout, poll, func() bool {
		info, err = b.Info(id)
		return err == nil && info.Phase == want
	}) {
		tb.Fatalf("row %s (%s): phase %q (error %v), want %q after %v", id, b.Name(), info.Phase, err, want, timeout)
	}
	return info
}

// WaitFile polls a file until its content is want, as a fake agent's byte log
// fills.
func WaitFile(tb testing.TB, path, want string, timeout time.Duration) {
	tb.Helper()
	var got []byte
	var err error
	if !testutil.WithinEvery(timeout, poll, func() bool {
		got, err = os.ReadFile(path)
		return err == nil && string(got) == want
	}) {
		tb.Fatalf("%s holds %q (error %v), want %q after %v", path, got, err, want, timeout)
	}
}

// Text is the screen as lines with the cursor marked, for failure messages.
func Text(s *screen.Screen) string {
	if s == nil {
		return "(no screen)"
	}
	var b strings.Builder
	for r := range s.Lines {
		fmt.Fprintf(&b, "%2d|%s|\n", r, strings.TrimRight(s.Line(r), " "))
	}
	fmt.Fprintf(&b, "cols=%d rows=%d cursor=%d,%d\n", s.Cols, s.Rows, s.CursorRow, s.CursorCol)
	return b.String()
}

// TmuxServerCPU reads the CPU time of a tmux backend's server, which is no
// child of this process, from /proc (in clock ticks of 10 ms). It answers -1
// for the PTY backend and where there is no /proc.
func TmuxServerCPU(tb testing.TB, b rows.Backend) func() time.Duration {
	none := func() time.Duration { return -1 }
	t, ok := b.(*rows.Tmux)
	if !ok {
		return none
	}
	out, err := exec.Command("tmux", "-S", t.Socket(), "display-message", "-p", "#{pid}").Output()
	if err != nil {
		tb.Fatalf("the tmux server's pid: %v", err)
	}
	stat := filepath.Join("/proc", strings.TrimSpace(string(out)), "stat")
	if _, err := os.Stat(stat); err != nil {
		return none
	}
	return func() time.Duration {
		raw, err := os.ReadFile(stat)
		if err != nil {
			tb.Fatal(err)
		}
		// utime and stime are fields 14 and 15, counted after the command
		// name's closing parenthesis.
		f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
		utime, _ := strconv.Atoi(f[11])
		stime, _ := strconv.Atoi(f[12])
		return time.Duration(utime+stime) * 10 * time.Millisecond
	}
}
