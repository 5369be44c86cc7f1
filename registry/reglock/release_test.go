package reglock

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRelease(t *testing.T) {
	tests := []struct {
		name  string
		while func(path string) error // done to the lock while it is held
		want  string                  // "" = released cleanly
		left  string                  // the lock's line after Release; "" = gone
	}{
		{"removes the lock", func(string) error { return nil }, "", ""},
		{"leaves a lock taken again by another", func(p string) error { return os.WriteFile(p, []byte("far:-:-:-:9:-\n"), 0o600) }, "names far:-:-:-:9:- at release", "far:-:-:-:9:-"},
		{"says a lock removed under it was gone", os.Remove, "already gone at release", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".registry.lock")
			l, err := Take(path, Options{Host: testHost})
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.while(path); err != nil {
				t.Fatal(err)
			}
			err = l.Release()
			if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Release = %v, want %q", err, tt.want)
			}
			b, rerr := os.ReadFile(path)
			switch {
			case tt.left == "" && !errors.Is(rerr, fs.ErrNotExist):
				t.Fatalf("lock left: %q, %v", b, rerr)
			case tt.left != "" && strings.TrimSpace(string(b)) != tt.left:
				t.Fatalf("lock %q, want %q", b, tt.left)
			}
			if err := l.Release(); err != nil {
				t.Fatalf("second Release: %v", err)
			}
			again, err := Take(path+".x", Options{Host: testHost})
			if err != nil {
				t.Fatal(err)
			}
			again.Release()
		})
	}
}
