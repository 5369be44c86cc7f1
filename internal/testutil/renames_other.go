//go:build !linux

package testutil

import "testing"

// Renames needs inotify; elsewhere the test that counts is skipped.
func Renames(t testing.TB, dir, name string) func() int {
	t.Skip("counting renames needs inotify (Linux)")
	return nil
}
