package registry

import (
	"os"
	"testing"

	"github.com/sotcomm/sotd/home"
)

// newHome is a fresh comm home with an empty registry.
func newHome(t *testing.T) home.Home {
	t.Helper()
	h, err := home.At(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := Ensure(h); err != nil {
		t.Fatal(err)
	}
	return h
}

// writeRegistry puts raw bytes at the registry path, as another client might.
func writeRegistry(t *testing.T, h home.Home, body string) {
	t.Helper()
	if err := os.WriteFile(h.Registry(), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// mustRead is the registry's bytes and identity, to prove later that nothing changed.
func mustRead(t *testing.T, path string) ([]byte, os.FileInfo) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fi
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b, fi
}

func assertUnchanged(t *testing.T, path string, b []byte, fi os.FileInfo) {
	t.Helper()
	b2, fi2 := mustRead(t, path)
	if string(b) != string(b2) || !os.SameFile(fi, fi2) {
		t.Errorf("%s changed:\nbefore %q\nafter  %q (same file: %v)", path, b, b2, os.SameFile(fi, fi2))
	}
}

// restoreFS undoes a test's fault injection.
func restoreFS(t *testing.T) {
	saved := fsys
	t.Cleanup(func() { fsys = saved })
}
