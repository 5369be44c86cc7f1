package reglock

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sotcomm/sotd/home"
)

// link makes target a new name for a fresh temp file holding rec: true when it
// is now rec's, false when target already exists (held), an error when no link
// could be made at all. Never a rename, which would replace a holder.
func link(lock, target, rec string) (bool, error) {
	tmp := lock + ".tmp." + home.FileName(rec)
	// An earlier temp is removed first: one a take could not remove may still be
	// a link to that take's marker, and the exclusive create refuses a name that
	// stays.
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("cannot remove an earlier %s: %v", tmp, cause(err))
	}
	if err := writeTemp(tmp, rec); err != nil {
		return false, err
	}
	lerr := os.Link(tmp, target)
	// A retransmitted NFSv3 LINK answers "exists" for the caller's own link, so
	// whether target is now this temp file decides.
	taken := lerr == nil || sameFile(tmp, target)
	os.Remove(tmp)
	switch {
	case taken:
		return true, nil
	case errors.Is(lerr, fs.ErrExist):
		return false, nil
	}
	return false, fmt.Errorf("cannot hard-link in %s: %v", filepath.Dir(target), cause(lerr))
}

// writeTemp writes rec and flushes it before the link publishes it: a lock whose
// name survived a crash but whose line did not would read as no holder, which
// only a person can clear.
func writeTemp(tmp, rec string) error {
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, home.FileMode)
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", tmp, cause(err))
	}
	_, err = f.WriteString(rec + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot write %s: %v", tmp, cause(err))
	}
	return nil
}

// sameFile reports whether a and b are one file. Both are opened, not just
// stat'ed, so an NFS client revalidates their attributes first.
func sameFile(a, b string) bool {
	fa, err := os.Open(a)
	if err != nil {
		return false
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false
	}
	defer fb.Close()
	sa, err1 := fa.Stat()
	sb, err2 := fb.Stat()
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// cause is the OS's own words for err, without the path an error line already names.
func cause(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
