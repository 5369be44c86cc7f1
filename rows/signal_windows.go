package rows

import "fmt"

// Windows has no process groups to signal; its PTY rows end their process
// through the process handle, and tmux rows do not exist there.

func terminateGroup(pid int) error {
	return fmt.Errorf("signal process group %d: %w", pid, ErrUnsupported)
}

func killGroup(pid int) error { return terminateGroup(pid) }

// processExists is only asked about tmux panes, which Windows does not have.
func processExists(pid int) bool { return false }
