//go:build !windows

package rows

import (
	"errors"
	"fmt"
	"syscall"
)

// A row's agent leads its own session and process group (tmux and pty.Start
// both call setsid), so -pid reaches everything it started that stayed in it.

func terminateGroup(pid int) error { return signalGroup(pid, syscall.SIGTERM) }
func killGroup(pid int) error      { return signalGroup(pid, syscall.SIGKILL) }

func signalGroup(pid int, sig syscall.Signal) error {
	if pid <= 1 {
		return fmt.Errorf("refusing to signal process group %d", pid)
	}
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal process group %d with %v: %w", pid, sig, err)
	}
	return nil
}

// processExists reports whether pid is a process, a zombie not yet reaped
// included.
func processExists(pid int) bool {
	return pid > 0 && !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
