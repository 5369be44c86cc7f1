package filer

import (
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"

	"github.com/sotcomm/sotd/home"
)

// newTestFiler is a filer on a fresh home, with its log kept for the test.
func newTestFiler(t testing.TB) (*Filer, *testutil.SyncBuffer) {
	t.Helper()
	return newTestFilerIn(t, t.TempDir())
}

// memDir is a fresh folder on tmpfs where there is one, else on the test's disk.
// Tests of lock exclusion under heavy contention use it: tmpfs is a local file
// system with the same flock, and a loaded disk's fsync latency, serialised
// thousands of times by the lock, would only stretch the test past its budget.
func memDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "filer-test-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func newTestFilerIn(t testing.TB, dir string) (*Filer, *testutil.SyncBuffer) {
	t.Helper()
	h, err := home.At(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	logs := &testutil.SyncBuffer{}
	return &Filer{
		Home:     h,
		LockWait: InboxLockWait,
		ReadWait: InboxReadWait,
		Manager:  "local test",
		Log:      slog.New(slog.NewTextHandler(logs, nil)),
		Now:      time.Now,
	}, logs
}

func mustPath(t testing.TB, f *Filer, k home.Kind, handle string) string {
	t.Helper()
	p, err := f.Home.HandlePath(k, handle)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// decodeLines parses every line of an inbox as a Line, failing on any that is torn.
func decodeLines(t testing.TB, text string) []Line {
	t.Helper()
	if text != "" && !strings.HasSuffix(text, "\n") {
		t.Fatalf("the inbox ends in an unterminated line: %q", text[max(0, len(text)-80):])
	}
	var out []Line
	for i, s := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if s == "" && text == "" {
			break
		}
		var l Line
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			t.Fatalf("line %d is torn or not JSON (%v): %q", i+1, err, s)
		}
		out = append(out, l)
	}
	return out
}

func line(from, to, msg, id string) Line {
	return Line{From: from, To: to, Repo: "r", Msg: msg, TS: "2026-05-29T18:04:00Z", ID: id}
}

// Helper processes: the test binary re-executed with FILER_HELPER naming the role.
const helperEnv = "FILER_HELPER"

// startHelper runs role in a child process and waits for its first stdout line.
func startHelper(t testing.TB, role string, env ...string) *testutil.Helper {
	t.Helper()
	return testutil.StartHelper(t, append([]string{helperEnv + "=" + role}, env...)...)
}

// kill ends the helper with SIGKILL (TerminateProcess on Windows) and reaps it.
func kill(t testing.TB, h *testutil.Helper) {
	t.Helper()
	if err := h.Cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	h.Cmd.Wait()
}
