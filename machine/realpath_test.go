package machine

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRealPath(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(dir, "alias")
	if err := os.Symlink(real, alias); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	tests := []struct {
		name, dir, want string
		err             bool
	}{
		{"a real folder", real, real, false},
		{"through a symlink", alias, real, false},
		{"relative, through a symlink", "alias", real, false},
		{"not made yet: its nearest parent", filepath.Join(alias, "not", "made"), real, false},
		{"a symlink loop is no missing folder", filepath.Join(loop, "x"), "", true},
	}
	for _, tc := range tests {
		got, err := RealPath(tc.dir)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("%s: RealPath(%q) = %q, %v; want %q", tc.name, tc.dir, got, err, tc.want)
		}
	}
}
