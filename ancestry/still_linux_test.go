package ancestry

import (
	"os/exec"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
)

// TestStill tells a running process from one that exited (reaped or a zombie)
// and from another process that reused its pid.
func TestStill(t *testing.T) {
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	p, err := procfs{}.Proc(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if got := Still(p.PID, p.Start); got != Running {
		t.Fatalf("Still of a running process = %v, want Running", got)
	}
	if got := Still(p.PID, p.Start+"0"); got != Gone {
		t.Errorf("Still with another start = %v, want Gone", got)
	}
	if got := Still(p.PID, "-"); got != Unproved {
		t.Errorf("Still with an unknown start = %v, want Unproved", got)
	}
	// Killed and not yet reaped: a zombie has ended.
	cmd.Process.Kill()
	testutil.Eventually(t, 10*time.Second, "the killed process reads as gone before it is reaped", func() bool {
		return Still(p.PID, p.Start) == Gone
	})
	cmd.Wait()
	if got := Still(p.PID, p.Start); got != Gone {
		t.Errorf("Still of a reaped process = %v, want Gone", got)
	}
}
