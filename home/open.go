package home

import (
	"bytes"
	"errors"
	"fmt"
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

// ErrTooLarge is wrapped by the refusal of a home file longer than its reader
// allows.
var ErrTooLarge = errors.New("too large")

// OpenFile opens path, one of the home's own files, as os.OpenFile does, but
// never through a symlink at its last element, and only when the descriptor it
// opened is a regular file: a link planted in the home would otherwise have an
// append cut back and extend a file elsewhere, or a lock create one. The open
// does not block, so a FIFO planted in a file's place is refused at once
// instead of holding the caller (and a daemon's stop) until a writer comes. A
// file that does not exist is the OS's own error, so fs.ErrNotExist still
// matches.
func (h Home) OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|NoFollow|nonBlock, perm)
	if err != nil {
		return nil, h.OpenError(path, err)
	}
	if err := h.CheckRegular(path, f.Stat); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads a home file whole, opened as OpenFile opens it, and refuses
// one longer than max bytes: every home file has a size its own writer never
// passes, and a larger one planted there must not take the reader's memory.
func (h Home) ReadFile(path string, max int64) ([]byte, error) {
	f, err := h.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return h.ReadMax(path, f, max)
}

// ReadMax reads r, the open file at path, to its end, but refuses it (wrapping
// ErrTooLarge) once it is longer than max bytes.
func (h Home) ReadMax(path string, r io.Reader, max int64) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(min(sizeHint(r), max)) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(r, max+1)); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is longer than the %d bytes sotd ever writes there, so it is %w to read; move it aside and retry", h.Name(path), max, ErrTooLarge)
	}
	return b, nil
}

// sizeHint is r's size when it is a file that says, so a large file is read
// into one buffer rather than one grown and copied a dozen times; 0 otherwise.
// Only a hint: the read still goes to the end, however long.
func sizeHint(r io.Reader) int64 {
	f, ok := r.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return 0
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() < 0 {
		return 0
	}
	return fi.Size()
}

// OpenError is err, an open of path with NoFollow that failed, or the refusal
// that names path a symlink or a special file when that is why: Unix answers
// ELOOP (EMLINK on FreeBSD) for a symlink, and ENXIO for a FIFO opened to write
// with no reader, rather than saying so.
func (h Home) OpenError(path string, err error) error {
	if fi, lerr := os.Lstat(path); lerr == nil {
		if ne := h.irregular(path, fi.Mode()); ne != nil && !fi.IsDir() {
			return ne
		}
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
	if ne := h.irregular(path, fi.Mode()); ne != nil {
		return ne
	}
	return nil
}

// irregular is the refusal of path, of mode m, or nil when m is a regular file.
func (h Home) irregular(path string, m fs.FileMode) *notRegularError {
	switch {
	case m.IsRegular():
		return nil
	case m&fs.ModeSymlink != 0:
		return &notRegularError{name: h.Name(path), what: "a symlink"}
	case m.IsDir():
		return &notRegularError{name: h.Name(path), what: "a folder"}
	case m&fs.ModeNamedPipe != 0:
		return &notRegularError{name: h.Name(path), what: "a FIFO"}
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
