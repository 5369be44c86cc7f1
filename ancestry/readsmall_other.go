//go:build !unix

package ancestry

import "os"

// readSmall reads a small file whole; buf is only a hint on Unix's system calls.
func readSmall(path string, _ []byte) ([]byte, error) { return os.ReadFile(path) }
