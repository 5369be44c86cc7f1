//go:build !windows

package client

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
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
