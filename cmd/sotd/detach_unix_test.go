//go:build unix

package main

import "golang.org/x/sys/unix"

// detach leaves the terminal session the test suite runs in, so every sotd a
// transcript runs is keyed as a session with no agent and no terminal (by its
// project root) wherever the suite runs, in a terminal or not. The terminal and
// agent keys are shown with real terminals and a real process named claude by
// integration/sessions_test.go.
func detach() { unix.Setsid() }
