//go:build !unix

package main

// detach has nothing to leave where sessions are keyed by the project root.
func detach() {}
