//go:build !unix

package hooks

import "os/exec"

// detach leaves cmd as it is: Codex runs no hooks on Windows yet.
func detach(*exec.Cmd) {}
