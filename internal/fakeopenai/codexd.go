package fakeopenai

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// StopCodexDaemons ends the shared app-server and its updater that a codex
// started without --no-daemon leaves running, detached from its row, so they do
// not outlive a test; each is found by the pid file Codex keeps for it in
// codexHome. A missing pid file is no error: nothing was started.
func StopCodexDaemons(codexHome string) error {
	var errs []error
	for _, name := range []string{"daemon.pid", "daemon-updater.pid"} {
		b, err := os.ReadFile(filepath.Join(codexHome, "app-server-daemon", name))
		if err != nil {
			continue
		}
		var rec struct {
			Pid int `json:"pid"`
		}
		if json.Unmarshal(b, &rec) != nil || rec.Pid <= 1 {
			errs = append(errs, fmt.Errorf("Codex's %s reads %q: no pid to stop", name, b))
			continue
		}
		// os.Process.Kill rather than syscall.Kill, so the package builds on
		// every GOOS the module is cross-built for.
		p, err := os.FindProcess(rec.Pid)
		if err == nil {
			err = p.Kill()
		}
		if err != nil && !errors.Is(err, os.ErrProcessDone) {
			errs = append(errs, fmt.Errorf("stop Codex's %s process %d: %w", name, rec.Pid, err))
		}
	}
	return errors.Join(errs...)
}
