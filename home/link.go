package home

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteNew creates path (0600, failing if it exists) holding data, flushed by
// sync, and removes it again on any failure, so a file that stays is whole and on
// disk. sync is (*os.File).Sync except where a test injects a failed flush, which
// root cannot provoke. The error is the OS's own, for the caller to word. O_EXCL
// already fails on any name that exists, a dangling symlink's too; NoFollow says
// so to every platform's open.
func WriteNew(path string, data []byte, sync func(*os.File) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|NoFollow, FileMode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = sync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// LinkNew publishes the flushed temp file tmp as target by link(2), which never
// replaces a name (a rename would), then removes tmp. created is true when target
// is now tmp's file, false when the name was taken (a file, a directory, even a
// dangling symlink). A failed link after which target is tmp's file counts as
// created: a retransmitted NFSv3 LINK answers "exists" for the caller's own link.
// err, only when no link could be made at all, is the protocol's
// "cannot hard-link in <dir>: <errno>".
func LinkNew(tmp, target string) (created bool, err error) {
	lerr := os.Link(tmp, target)
	created = lerr == nil || SameFile(tmp, target)
	os.Remove(tmp)
	if created || errors.Is(lerr, fs.ErrExist) {
		return created, nil
	}
	errno := lerr
	if le := (*os.LinkError)(nil); errors.As(lerr, &le) {
		errno = le.Err
	}
	return false, fmt.Errorf("cannot hard-link in %s: %w", filepath.Dir(target), errno)
}

// SameFile reports whether a and b name one file or folder: the one rule for
// "is this the same file" (a link just made, the comm home against the user's
// home, the sotd on PATH against this one). A regular file or folder is opened,
// not just stat'ed, so an NFS client revalidates its attributes first; anything
// else (a FIFO would block an open) is only stat'ed.
func SameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, err1 := statFresh(a)
	sb, err2 := statFresh(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func statFresh(p string) (fs.FileInfo, error) {
	fi, err := os.Stat(p)
	if err != nil || !(fi.Mode().IsRegular() || fi.IsDir()) {
		return fi, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat()
}
