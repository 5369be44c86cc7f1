package rigtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/rows/rowstest"
	"github.com/sotcomm/sotd/wire"
)

// BackendKind makes one rows backend for a daemon under test.
type BackendKind struct {
	Name string
	Make func(t testing.TB) func(h home.Home, host string, opt rows.Options) rows.Backend
}

// BackendKinds is the PTY always, and tmux where it is installed (CI installs
// it; without it CI fails).
func BackendKinds(t testing.TB) []BackendKind {
	ks := []BackendKind{{Name: "pty", Make: func(testing.TB) func(home.Home, string, rows.Options) rows.Backend {
		return func(_ home.Home, _ string, opt rows.Options) rows.Backend { return rows.NewPTY(opt) }
	}}}
	if _, err := exec.LookPath("tmux"); err == nil {
		ks = append(ks, BackendKind{Name: "tmux", Make: TmuxBackend})
	} else if os.Getenv("CI") != "" {
		t.Fatalf("tmux is not installed, and CI must test the tmux backend: %v", err)
	}
	return ks
}

// TmuxBackend makes tmux backends whose server the test's end kills, since
// its rows outlive every daemon.
func TmuxBackend(t testing.TB) func(home.Home, string, rows.Options) rows.Backend {
	return func(h home.Home, host string, opt rows.Options) rows.Backend {
		b, err := rows.NewTmux(h, host, opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { exec.Command("tmux", "-S", b.Socket(), "kill-server").Run() })
		return b
	}
}

// The fake agent, built at the first rows test: a helper process a test
// binary re-execs (as another user, say) builds nothing.
var (
	fakeAgentOnce sync.Once
	fakeAgentDir  string
	fakeAgentBin  string
	fakeAgentErr  error
)

// FakeAgent is the fake agent's binary, built once a test binary.
func FakeAgent(t testing.TB) string {
	t.Helper()
	fakeAgentOnce.Do(func() {
		if fakeAgentDir, fakeAgentErr = os.MkdirTemp("", "daemon-bin"); fakeAgentErr == nil {
			fakeAgentBin, fakeAgentErr = rowstest.BuildFakeAgent(fakeAgentDir)
		}
	})
	if fakeAgentErr != nil {
		t.Fatal(fakeAgentErr)
	}
	return fakeAgentBin
}

// RemoveFakeAgent removes the fake agent's build, if there was one; a test
// binary's TestMain calls it at its end.
func RemoveFakeAgent() {
	if fakeAgentDir != "" {
		os.RemoveAll(fakeAgentDir)
	}
}

// FakeSpawn is a spawn of the fake agent, whose byte log is returned with it.
func FakeSpawn(t testing.TB, label, handle string) (wire.WorkspaceSpawn, string) {
	dir := t.TempDir()
	log := filepath.Join(dir, "bytes.log")
	return wire.WorkspaceSpawn{Label: label, Handle: handle, Agent: "claude", Cwd: dir, Argv: []string{FakeAgent(t)}, Env: []string{rowstest.EnvLog + "=" + log}}, log
}

// ByteLog is what the fake agent logged of the bytes typed into it at path.
func ByteLog(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}
