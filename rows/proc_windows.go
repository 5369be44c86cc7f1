package rows

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/charmbracelet/x/conpty"
	"golang.org/x/sys/windows"
)

// winProc is an agent on a ConPTY pseudo console. Windows has no process
// groups to signal, so Stop ends the agent itself through its process handle.
type winProc struct {
	*conpty.ConPty
	pid int

	mu     sync.Mutex
	handle windows.Handle // 0 once Close let go of it
}

func startProc(argv []string, dir string, env []string, cols, rows int) (proc, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, err
	}
	c, err := conpty.New(cols, rows, 0)
	if err != nil {
		return nil, fmt.Errorf("create a pseudo console: %w", err)
	}
	pid, h, err := c.Spawn(path, argv, &syscall.ProcAttr{Dir: dir, Env: env})
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	return &winProc{ConPty: c, pid: pid, handle: windows.Handle(h)}, nil
}

func (w *winProc) Pid() int { return w.pid }

// Wait runs before Close, which alone lets go of the handle.
func (w *winProc) Wait() int {
	if _, err := windows.WaitForSingleObject(w.handle, windows.INFINITE); err != nil {
		return -1
	}
	var code uint32
	if err := windows.GetExitCodeProcess(w.handle, &code); err != nil {
		return -1
	}
	return int(code)
}

func (w *winProc) terminate() error { return w.kill() }

func (w *winProc) kill() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.handle == 0 {
		return nil
	}
	err := windows.TerminateProcess(w.handle, 1)
	if err != nil {
		// Refused because it already exited: nothing is left to end.
		if ev, werr := windows.WaitForSingleObject(w.handle, 0); werr == nil && ev == windows.WAIT_OBJECT_0 {
			return nil
		}
		return fmt.Errorf("end process %d: %w", w.pid, err)
	}
	return nil
}

// SetWriteDeadline is not offered by ConPTY's pipes.
func (w *winProc) SetWriteDeadline(time.Time) error { return os.ErrNoDeadline }

func (w *winProc) Close() error {
	w.mu.Lock()
	if w.handle != 0 {
		_ = windows.CloseHandle(w.handle)
		w.handle = 0
	}
	w.mu.Unlock()
	return w.ConPty.Close()
}
