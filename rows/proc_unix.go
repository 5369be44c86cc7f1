//go:build !windows

package rows

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/creack/pty"
)

// unixProc is an agent on a Unix pseudo-terminal. pty.StartWithSize makes it a
// session leader with the terminal as its controlling tty, so its process
// group is its own.
type unixProc struct {
	*os.File // the master side
	cmd      *exec.Cmd
}

func startProc(argv []string, dir string, env []string, cols, rows int) (proc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		return nil, err
	}
	return &unixProc{File: f, cmd: cmd}, nil
}

func (u *unixProc) Pid() int { return u.cmd.Process.Pid }

func (u *unixProc) Wait() int {
	_ = u.cmd.Wait()
	ws, ok := u.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || ws.Signaled() {
		return -1
	}
	return ws.ExitStatus()
}

func (u *unixProc) terminate() error { return terminateGroup(u.Pid()) }
func (u *unixProc) kill() error      { return killGroup(u.Pid()) }
