package testutil

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// CopyTestBinary copies the running test binary into a folder every account
// may read and run, for a helper process started as another user (nobody),
// which cannot reach the build's private folder. Copy it before starting
// anything: a child forked while the copy's write descriptor is open
// inherits it until its exec, and the helper's exec then fails with ETXTBSY.
func CopyTestBinary(t testing.TB) string {
	t.Helper()
	dir := ShortDir(t, "bin")
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	bin := filepath.Join(dir, filepath.Base(os.Args[0]))
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}
