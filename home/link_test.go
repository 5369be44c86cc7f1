package home

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

func TestWriteNew(t *testing.T) {
	failSync := func(*os.File) error { return syscall.EIO }
	tests := []struct {
		name    string
		before  func(path string) error // what is at path beforehand
		sync    func(*os.File) error
		wantErr error
		want    string // the file afterwards; "" for none
	}{
		{"fresh", nil, (*os.File).Sync, nil, "data\n"},
		{"an existing file is refused, untouched", func(p string) error { return os.WriteFile(p, []byte("old\n"), 0o644) },
			(*os.File).Sync, fs.ErrExist, "old\n"},
		{"a failed flush removes the file", nil, failSync, syscall.EIO, ""},
		{"a missing folder", func(p string) error { return os.RemoveAll(filepath.Dir(p)) }, (*os.File).Sync, fs.ErrNotExist, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d", "new")
			if err := os.Mkdir(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if tc.before != nil {
				if err := tc.before(path); err != nil {
					t.Fatal(err)
				}
			}
			err := WriteNew(path, []byte("data\n"), tc.sync)
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("WriteNew = %v, want %v", err, tc.wantErr)
			}
			got, rerr := os.ReadFile(path)
			if tc.want == "" {
				if !errors.Is(rerr, fs.ErrNotExist) {
					t.Fatalf("left %q behind (%v)", got, rerr)
				}
				return
			}
			if string(got) != tc.want {
				t.Fatalf("file holds %q, want %q", got, tc.want)
			}
			if fi, _ := os.Stat(path); tc.wantErr == nil && fi.Mode().Perm() != FileMode {
				t.Fatalf("mode %v, want %v", fi.Mode().Perm(), FileMode)
			}
		})
	}
}

// LinkNew never replaces what is at the name, counts its own link as created,
// and never leaves the temp file behind.
func TestLinkNew(t *testing.T) {
	tests := []struct {
		name    string
		before  func(tmp, target string) error
		created bool
		err     string // the error's start, with <dir> for target's folder
	}{
		{"absent: created", nil, true, ""},
		{"a file: never replaced", func(_, p string) error { return os.WriteFile(p, []byte("theirs\n"), 0o600) }, false, ""},
		{"an empty file: never replaced", func(_, p string) error { return os.WriteFile(p, nil, 0o600) }, false, ""},
		{"a directory: never linked into", func(_, p string) error { return os.Mkdir(p, 0o700) }, false, ""},
		{"a dangling symlink: never followed", func(_, p string) error { return os.Symlink(p+".nowhere", p) }, false, ""},
		// What a retransmitted NFSv3 LINK leaves: the name exists, and it is ours.
		{"our own link, answered exists: created", func(tmp, p string) error { return os.Link(tmp, p) }, true, ""},
		{"a missing folder", func(_, p string) error { return os.Remove(filepath.Dir(p)) }, false, "cannot hard-link in <dir>: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tmp, target := filepath.Join(dir, "tmp"), filepath.Join(dir, "d", "target")
			if err := os.Mkdir(filepath.Dir(target), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := WriteNew(tmp, []byte("ours\n"), (*os.File).Sync); err != nil {
				t.Fatal(err)
			}
			var before os.FileInfo
			if tc.before != nil {
				if err := tc.before(tmp, target); err != nil {
					t.Fatal(err)
				}
				before, _ = os.Lstat(target)
			}
			created, err := LinkNew(tmp, target)
			want := strings.ReplaceAll(tc.err, "<dir>", filepath.Dir(target))
			if created != tc.created || (err == nil) != (want == "") || err != nil && !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("LinkNew = %v, %v; want %v, %q…", created, err, tc.created, want)
			}
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the errno is not wrapped: %v", err)
			}
			if _, err := os.Lstat(tmp); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the temp file was left behind (%v)", err)
			}
			if created {
				if got, _ := os.ReadFile(target); string(got) != "ours\n" {
					t.Fatalf("target holds %q", got)
				}
			} else if before != nil {
				after, _ := os.Lstat(target)
				if after == nil || !os.SameFile(before, after) || after.Size() != before.Size() {
					t.Fatalf("what was at the name was replaced or changed")
				}
				if before.IsDir() {
					if entries, _ := os.ReadDir(target); len(entries) != 0 {
						t.Fatalf("linked into the directory: %v", entries)
					}
				}
			}
		})
	}
}

// Of writers racing for one name, exactly one creates it, and it holds that
// writer's bytes.
func TestLinkNewRace(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	const n = 8
	created := make([]bool, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			tmp := filepath.Join(dir, fmt.Sprintf("tmp.%d", i))
			if err := WriteNew(tmp, fmt.Appendf(nil, "%d\n", i), (*os.File).Sync); err != nil {
				t.Error(err)
				return
			}
			c, err := LinkNew(tmp, target)
			if err != nil {
				t.Error(err)
			}
			created[i] = c
		})
	}
	wg.Wait()
	got, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	var winners []int
	for i, c := range created {
		if c {
			winners = append(winners, i)
		}
	}
	if len(winners) != 1 || string(got) != fmt.Sprintf("%d\n", winners[0]) {
		t.Fatalf("winners %v, target holds %q", winners, got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
}

// SameFile is the rule for a failed link: created only when the target is the
// caller's own temp file.
func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	for _, p := range []string{a, c} {
		if err := os.WriteFile(p, []byte("x\n"), FileMode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(a, b); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		x, y string
		want bool
	}{
		{"a hard link", a, b, true},
		{"itself", a, a, true},
		{"equal bytes, another file", a, c, false},
		{"missing", a, filepath.Join(dir, "none"), false},
		{"missing first", filepath.Join(dir, "none"), a, false},
	}
	for _, tc := range tests {
		if got := SameFile(tc.x, tc.y); got != tc.want {
			t.Errorf("%s: SameFile = %v, want %v", tc.name, got, tc.want)
		}
	}
}
