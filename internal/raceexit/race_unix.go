//go:build race && unix

package raceexit

import (
	"os"
	"slices"
	"strings"
	"syscall"
)

func init() {
	if quick() {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	kept := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GORACE=") })
	_ = syscall.Exec(exe, os.Args, append(kept, env()))
	// Exec returns only when it failed: this run goes on with the sleep.
}
