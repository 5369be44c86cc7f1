//go:build !windows

package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
)

// TestSocketFolderIsNeverOpenedOrClosed: $SOT_SOCKET outside the home in a
// folder that does not exist makes it private; in an existing private folder
// it is used as it is; in an existing folder open to others (as the system's
// temporary folder is) or another account's, the daemon refuses to start and
// the folder's mode is untouched. Before, the daemon chmodded any folder 0700,
// closing /tmp to everyone else. A folder in the home is the home's own, and
// is closed as every folder of the home is.
func TestSocketFolderIsNeverOpenedOrClosed(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) // dir does not exist yet
		mode  os.FileMode                    // the folder's mode after
		says  string                         // "" serves
	}{
		{"made when missing", func(*testing.T, string) {}, 0o700, ""},
		{"private kept", func(t *testing.T, dir string) { mkdirMode(t, dir, 0o700) }, 0o700, ""},
		{"shared like /tmp refused", func(t *testing.T, dir string) { mkdirMode(t, dir, 0o1777) }, 0o777, "is open to other users (mode 777)"},
		{"group-readable refused", func(t *testing.T, dir string) { mkdirMode(t, dir, 0o750) }, 0o750, "is open to other users (mode 750)"},
		{"another account's refused", func(t *testing.T, dir string) {
			mkdirMode(t, dir, 0o700)
			if err := os.Chown(dir, os.Getuid()+1, -1); err != nil {
				t.Skipf("cannot give the folder to another account: %v", err)
			}
		}, 0o700, "not to this account"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			dir := filepath.Join(testutil.ShortDir(t, "s"), "sockets") // outside the home, as /tmp is
			tc.setup(t, dir)
			sock := filepath.Join(dir, "s.sock")
			t.Setenv("SOT_SOCKET", sock)
			if tc.says == "" {
				r := startOn(t, h)
				if _, err := call(t, r.dial(t), wireReq("bob")); err != nil {
					t.Fatal(err)
				}
			} else {
				d, err := New(Config{Home: h, Host: "box"})
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				err = d.Run(ctx)
				if err == nil || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "$SOT_SOCKET") {
					t.Fatalf("Run with the socket in %s = %v; want a refusal saying %q and naming $SOT_SOCKET", dir, err, tc.says)
				}
			}
			fi, err := os.Stat(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tc.mode {
				t.Errorf("the socket folder has mode %o, want %o", got, tc.mode)
			}
		})
	}
}

// mkdirMode makes dir with mode exactly, whatever the umask.
func mkdirMode(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
}

// TestSocketFolderInTheHomeIsClosed: the home's own socket folder, opened by
// hand, is closed again at the start, as every folder of the home is.
func TestSocketFolderInTheHomeIsClosed(t *testing.T) {
	h := newHome(t)
	dir := filepath.Join(h.Dir, "run", "box")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := startOn(t, h)
	if filepath.Dir(r.sock) != dir {
		t.Fatalf("socket at %s, want it in %s", r.sock, dir)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the home's socket folder: %v, %v; want mode 700", fi, err)
	}
}
