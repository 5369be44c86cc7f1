//go:build !windows

package home

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every read of a home file is refused at once when a FIFO stands in its
// place (the open never waits for a writer), when it is a symlink, or when it
// is longer than its reader allows.
func TestHomeFilesRefuseFIFOsLinksAndTheOversized(t *testing.T) {
	h, err := At(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	selfPath := h.SelfPath("box", Slot{Row: "r1"})
	if err := MkdirPrivate(filepath.Dir(selfPath)); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(outside, []byte("mallory\nrepo=x\nroot=/x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plant := map[string]func(p string) error{
		"a FIFO":    func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"a symlink": func(p string) error { return os.Symlink(outside, p) },
	}
	reads := map[string]func() error{
		"ReadFile": func() error { _, err := h.ReadFile(selfPath, 1<<10); return err },
		"ReadSelf": func() error { _, _, err := h.ReadSelf("box", Slot{Row: "r1"}); return err },
	}
	for kind, put := range plant {
		for name, read := range reads {
			t.Run(kind+"/"+name, func(t *testing.T) {
				os.Remove(selfPath)
				if err := put(selfPath); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { done <- read() }()
				select {
				case err := <-done:
					if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "self/box__r1.txt is "+kind) {
						t.Fatalf("%s of %s = %v; want it refused as %s", name, kind, err, kind)
					}
				case <-time.After(10 * time.Second):
					// Let the blocked open go before failing.
					if w, err := os.OpenFile(selfPath, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						w.Close()
					}
					t.Fatalf("%s of %s did not return within 10s", name, kind)
				}
			})
		}
	}
	t.Run("oversized", func(t *testing.T) {
		os.Remove(selfPath)
		if err := os.WriteFile(selfPath, make([]byte, 1025), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := h.ReadFile(selfPath, 1024); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "self/box__r1.txt is longer than the 1024 bytes") {
			t.Fatalf("ReadFile of 1025 bytes with a bound of 1024 = %v; want it refused as too large", err)
		}
		if b, err := h.ReadFile(selfPath, 1025); err != nil || len(b) != 1025 {
			t.Fatalf("ReadFile of 1025 bytes with a bound of 1025 = %d bytes, %v", len(b), err)
		}
	})
}
