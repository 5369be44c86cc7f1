//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in a session of its own, so it outlives the hook that
// starts it and no signal to the agent's process group reaches it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
