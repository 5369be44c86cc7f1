package reglock

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

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
	// Flushed before the link publishes it: a lock whose name survived a crash
	// but whose line did not would read as no holder, which only a person can
	// clear.
	if err := home.WriteNew(tmp, []byte(rec+"\n"), (*os.File).Sync); err != nil {
		return false, fmt.Errorf("cannot write %s: %v", tmp, cause(err))
	}
	return home.LinkNew(tmp, target)
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
