package crashfs

import (
	"bytes"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
)

// writeFile creates or replaces path with data, fsyncing the file when sync is set.
func writeFile(t *testing.T, path, data string, sync bool) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
}

func appendFile(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}

func syncDir(t *testing.T, dir string) {
	t.Helper()
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
}

// content is path's bytes, or "<absent>".
func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "<absent>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCrashKeepsWhatWasSynced checks the model against what POSIX promises:
// synced bytes and synced entries survive a crash, nothing else does, and
// lenient mode differs from strict only for a synced file's own names.
func TestCrashKeepsWhatWasSynced(t *testing.T) {
	type want struct{ strict, lenient string }
	cases := []struct {
		name  string
		path  string
		setup func(t *testing.T, dir string)
		want  want
	}{
		{"a file and its folder synced", "a", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "a"), "kept", true)
			syncDir(t, dir)
		}, want{"kept", "kept"}},
		{"bytes appended after the last fsync", "b", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "b"), "kept", true)
			syncDir(t, dir)
			appendFile(t, filepath.Join(dir, "b"), " lost")
		}, want{"kept", "kept"}},
		{"a file never synced", "c", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "c"), "lost", false)
			syncDir(t, dir)
		}, want{"", ""}},
		{"a new file synced, its folder not", "d", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "d"), "synced", true)
		}, want{"<absent>", "synced"}},
		{"a rename over a file, its folder not synced", "e", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "e"), "old", true)
			syncDir(t, dir)
			writeFile(t, filepath.Join(dir, "e.tmp"), "new", true)
			if err := os.Rename(filepath.Join(dir, "e.tmp"), filepath.Join(dir, "e")); err != nil {
				t.Fatal(err)
			}
		}, want{"old", "old"}},
		{"a rename over a file, its folder synced", "f", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "f"), "old", true)
			syncDir(t, dir)
			writeFile(t, filepath.Join(dir, "f.tmp"), "new", true)
			if err := os.Rename(filepath.Join(dir, "f.tmp"), filepath.Join(dir, "f")); err != nil {
				t.Fatal(err)
			}
			syncDir(t, dir)
		}, want{"new", "new"}},
		{"a file removed, its folder not synced", "g", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "g"), "back", true)
			syncDir(t, dir)
			if err := os.Remove(filepath.Join(dir, "g")); err != nil {
				t.Fatal(err)
			}
		}, want{"back", "back"}},
		{"a new folder synced, its parent not", "h/x", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "h"), 0o700); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, "h", "x"), "inside", true)
			syncDir(t, filepath.Join(dir, "h"))
		}, want{"<absent>", "inside"}},
		{"a hard link, its folder synced", "i2", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "i"), "linked", true)
			if err := os.Link(filepath.Join(dir, "i"), filepath.Join(dir, "i2")); err != nil {
				t.Fatal(err)
			}
			syncDir(t, dir)
		}, want{"linked", "linked"}},
		{"a truncation not synced", "j", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "j"), "whole", true)
			syncDir(t, dir)
			if err := os.Truncate(filepath.Join(dir, "j"), 2); err != nil {
				t.Fatal(err)
			}
		}, want{"whole", "whole"}},
	}
	for _, mode := range []Mode{Strict, Lenient} {
		t.Run(mode.String(), func(t *testing.T) {
			mnt := t.TempDir()
			c := Mount(t, mnt, mode)
			for _, tc := range cases {
				dir := filepath.Join(mnt, filepath.FromSlash(tc.name))
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				syncDir(t, mnt)
				tc.setup(t, dir)
			}
			if err := c.Crash(nil); err != nil {
				t.Fatal(err)
			}
			for _, tc := range cases {
				want := tc.want.strict
				if mode == Lenient {
					want = tc.want.lenient
				}
				if got := content(t, filepath.Join(mnt, tc.name, tc.path)); got != want {
					t.Errorf("%s: after the crash %s holds %q, want %q", tc.name, tc.path, got, want)
				}
			}
			// The crashed state is the new durable state: a second crash keeps it.
			if err := c.Crash(nil); err != nil {
				t.Fatal(err)
			}
			if got := content(t, filepath.Join(mnt, "a file and its folder synced", "a")); got != "kept" {
				t.Errorf("after a second crash a holds %q, want kept", got)
			}
		})
	}
}

// TestCrashTearsAnUnsyncedAppend checks that a torn crash keeps the synced bytes
// and a prefix of the unsynced tail, of every length over enough crashes.
func TestCrashTearsAnUnsyncedAppend(t *testing.T) {
	mnt := t.TempDir()
	c := Mount(t, mnt, Strict)
	p := filepath.Join(mnt, "f")
	rng := rand.New(rand.NewPCG(1, 2))
	lengths := map[int]bool{}
	for range 40 {
		writeFile(t, p, "base", true)
		syncDir(t, mnt)
		appendFile(t, p, "+tail")
		if err := c.Crash(rng); err != nil {
			t.Fatal(err)
		}
		got := content(t, p)
		if !bytes.HasPrefix([]byte("base+tail"), []byte(got)) || len(got) < len("base") {
			t.Fatalf("after a torn crash f holds %q, want base and a prefix of +tail", got)
		}
		lengths[len(got)] = true
	}
	if !lengths[len("base")] || !lengths[len("base+tail")] {
		t.Errorf("40 torn crashes kept tails of lengths %v; want none and all among them", lengths)
	}
}
