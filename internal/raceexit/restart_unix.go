//go:build race && unix

package raceexit

import (
	"os"
	"syscall"
)

// restart runs this binary again with the environment as it now is.
func restart() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	_ = syscall.Exec(exe, os.Args, os.Environ())
	// Exec returns only when it failed: this run goes on with the sleep, and
	// the processes it starts without it.
}
