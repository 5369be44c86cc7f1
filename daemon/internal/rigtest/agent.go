//go:build !windows

package rigtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/wire"
)

// AgentAbove runs a process named claude (a shell) with a child, as a
// session's agent runs its comm command; it answers the agent as a watch
// names it, and the child's pid, the asker a join would be.
func AgentAbove(t *testing.T) (wire.SessionWatch, int) {
	t.Helper()
	dir := t.TempDir()
	link := filepath.Join(dir, "claude")
	if err := os.Symlink("/bin/sh", link); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "child")
	cmd := exec.Command(link, "-c", `sleep 300 & echo $! >"$0.tmp" && mv "$0.tmp" "$0"; wait`, pidFile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		cmd.Process.Kill()
		cmd.Wait()
	})
	var child int
	testutil.Eventually(t, 10*time.Second, "the agent's child to start", func() bool {
		b, err := os.ReadFile(pidFile)
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && child > 0
	})
	tab, err := ancestry.OSTable()
	if err != nil {
		t.Fatal(err)
	}
	p, err := tab.Proc(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return wire.SessionWatch{Handle: "carol", PID: p.PID, Start: p.Start}, child
}
