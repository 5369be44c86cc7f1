//go:build !windows

package client

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
)

// TestReadRowsTakesOnlyItsOwnAccountsDaemon puts a fake daemon on the socket
// that answers every registry.rows with a forged alice. Run by this account,
// its answer is taken for a large registry (so the ask is made) and not asked
// for a small one; run as another account (nobody, a real process), it is
// never taken: the file's alice is.
func TestReadRowsTakesOnlyItsOwnAccountsDaemon(t *testing.T) {
	sockDir := testutil.ShortDir(t, "rvs")
	sock := filepath.Join(sockDir, "sotd.sock")
	host := func(s *Session) string {
		t.Helper()
		e, ok, err := s.Lookup("alice")
		if err != nil || !ok {
			t.Fatalf("alice: present %v, err %v", ok, err)
		}
		return e.Host
	}

	large, small := largeHome(t, 300), largeHome(t, 3)
	t.Setenv(home.EnvSocket, sock)
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	go forgingDaemon(l)
	if got := host(large); got != "forged" {
		t.Fatalf("a daemon of this account over a large registry: alice's host %q; want its answer, forged", got)
	}
	if got := host(small); got != "box" {
		t.Fatalf("a small registry: alice's host %q; want the file's, box", got)
	}
	l.Close()

	if os.Getuid() != 0 {
		t.Skip("a daemon of another account needs root to start one")
	}
	bin := testutil.CopyTestBinary(t)
	if err := os.Chmod(sockDir, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Remove(sock)
	cmd := exec.Command(bin, "-test.run=^TestHelperFakeDaemon$")
	cmd.Env = append(os.Environ(), fakeDaemonEnv+"="+sock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	testutil.Eventually(t, 10*time.Second, "nobody's fake daemon to listen", func() bool { return testutil.Answers(sock) })
	if got := host(large); got != "box" {
		t.Fatalf("a daemon of uid 65534: alice's host %q; want the file's, box", got)
	}
}

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	n atomic.Int32
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// TestStatusWriteAsksNothingFirst: over a large registry, with a daemon of
// this account on the socket, a status write (and a declaration's note on the
// state it left, and --json) asks the daemon nothing: the write reads the row
// under the registry lock, and the row's binding is checked there, on the row
// it replaces. A row bound to another row is still refused, nothing written.
func TestStatusWriteAsksNothingFirst(t *testing.T) {
	s := largeHome(t, 300)
	t.Setenv(home.EnvSocket, filepath.Join(testutil.ShortDir(t, "sw"), "none.sock"))
	if code := s.Join(JoinArgs{Name: "alice"}); code != ExitOK {
		t.Fatalf("join: exit %d", code)
	}
	sock := filepath.Join(testutil.ShortDir(t, "sws"), "sotd.sock")
	t.Setenv(home.EnvSocket, sock)
	nl, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	l := &countingListener{Listener: nl}
	defer l.Close()
	go forgingDaemon(l)
	var out strings.Builder
	s.Stdout = &out
	if code := s.Declare(registry.VerbIdle, "tests pass", true, false); code != ExitOK {
		t.Fatalf("declare idle: exit %d:\n%s", code, out.String())
	}
	out.Reset()
	if code := s.Status(registry.VerbPrompt, registry.FloorUser, true, true); code != ExitOK || !strings.Contains(out.String(), `"state":"working"`) {
		t.Fatalf("prompt --json: exit %d:\n%s", code, out.String())
	}
	if n := l.n.Load(); n != 0 {
		t.Fatalf("the status writes asked the daemon %d times; want none", n)
	}
	e := lookupFile(t, s, "alice")
	if e.State != registry.StateWorking || e.Note != "tests pass" {
		t.Fatalf("alice after idle and a prompt: state %q, note %q; want working, tests pass", e.State, e.Note)
	}

	if err := registry.Mark(s.Home, "alice", registry.TouchWait, func(e *registry.Entry) error { e.WorkspaceID = "w2"; return nil }); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := s.Status(registry.VerbDone, "", false, false); code != ExitFailed || !strings.Contains(out.String(), "belongs to row w2") {
		t.Fatalf("done in a process that is not row w2: exit %d:\n%s", code, out.String())
	}
	if got := lookupFile(t, s, "alice"); got.StatusAt != e.StatusAt || got.Done {
		t.Fatalf("a refused done was written: %+v", got)
	}
}

// lookupFile is name's row as the registry file holds it.
func lookupFile(t *testing.T, s *Session, name string) *registry.Entry {
	t.Helper()
	d, err := registry.ReadRows(s.Home, name)
	if err != nil || d.Agents[name] == nil {
		t.Fatalf("%s: %v, %v", name, d, err)
	}
	return d.Agents[name]
}
