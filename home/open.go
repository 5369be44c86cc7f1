package home

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotRegular is wrapped by the refusal of a home file that is a symlink or
// anything else but a regular file.
var ErrNotRegular = errors.New("not a regular file")

// notRegularError names the file as the home lays it out (inbox/<h>.jsonl) and
// says what to do about it.
type notRegularError struct {
	name string // the path inside the home, with '/' separators
	what string // "a symlink", "a folder", ...
}

func (e *notRegularError) Error() string {
	if e.what == "a symlink" {
		return e.name + " is a symlink, not a regular file: sotd never follows links in the home; remove it and retry"
	}
	return e.name + " is " + e.what + ", not a regular file; move it aside and retry"
}

func (e *notRegularError) Unwrap() error { return ErrNotRegular }

// OpenFile opens path, one of the home's own files, as os.OpenFile does, but
// never through a symlink at its last element, and only when the descriptor it
// opened is a regular file: a link planted in the home would otherwise have an
// append cut back and extend a file elsewhere, or a lock create one. A file that
// does not exist is the OS's own error, so fs.ErrNotExist still matches.
func (h Home) OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|NoFollow, perm)
	if err != nil {
		return nil, h.OpenError(path, err)
	}
	if err := h.CheckRegular(path, f.Stat); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads a home file whole, opened as OpenFile opens it.
func (h Home) ReadFile(path string) ([]byte, error) {
	f, err := h.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// OpenError is err, an open of path with NoFollow that failed, or the refusal
// that names path a symlink when that is why: Unix answers ELOOP (EMLINK on
// FreeBSD) rather than saying so.
func (h Home) OpenError(path string, err error) error {
	if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return &notRegularError{name: h.Name(path), what: "a symlink"}
	}
	return err
}

// CheckRegular refuses path unless stat, a stat of the descriptor opened for it,
// says a regular file. The descriptor's own stat, never the path's, so a file
// swapped in after the open cannot pass for the one opened.
func (h Home) CheckRegular(path string, stat func() (fs.FileInfo, error)) error {
	fi, err := stat()
	if err != nil {
		return err
	}
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m&fs.ModeSymlink != 0:
		return &notRegularError{name: h.Name(path), what: "a symlink"}
	case m.IsDir():
		return &notRegularError{name: h.Name(path), what: "a folder"}
	}
	return &notRegularError{name: h.Name(path), what: "a special file (" + m.Type().String() + ")"}
}

// Name is path inside the home as the protocol's layout writes it
// (read/<h>.cursor), or path itself when it is not inside the home.
func (h Home) Name(path string) string {
	if rel, err := filepath.Rel(h.Dir, path); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return path
}
