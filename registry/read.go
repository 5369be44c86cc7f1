package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/sotcomm/sotd/home"
)

// Retries of a failed read. The protocol asks for up to 3 in about 200 ms: the
// first at once, the others after a pause, each re-opening the folder (which makes
// an NFS client revalidate it) and then the file by path, never the old descriptor.
const readRetries = 3

var retryPause = [readRetries]time.Duration{0, 100 * time.Millisecond, 100 * time.Millisecond}

// Read returns the registry as it is on disk now: a fresh read, retried on ESTALE.
// Every failure wraps ErrUnreadable; a missing file also wraps fs.ErrNotExist.
func Read(h home.Home) (*Doc, error) {
	path := h.Registry()
	b, err := readBytes(h, path)
	if err != nil {
		return nil, err
	}
	d, why := parse(b)
	if why != "" {
		return nil, unreadableFile(path, why)
	}
	return d, nil
}

// Lookup reads the registry and answers one row: present, absent (err nil,
// present false), or unreadable (err wraps ErrUnreadable). Only that row is
// decoded (ReadRows).
func Lookup(h home.Home, name string) (e *Entry, present bool, err error) {
	d, err := ReadRows(h, name)
	if err != nil {
		return nil, false, err
	}
	e, present = d.Agents[name]
	return e, present, nil
}

// maxRegistry bounds a registry read: thousands of sessions' rows take a
// fraction of it.
const maxRegistry = 64 << 20

// readBytes is the one read under every registry read and write. A missing file is
// told at the first open, never by a stat. A try that failed (any other open error,
// a read error even after some bytes, which are dropped, or zero bytes) is retried;
// non-empty bytes read whole are returned, parseable or not, and never retried.
func readBytes(h home.Home, path string) ([]byte, error) {
	var why error
	for try := 0; ; try++ {
		b, err := readOnce(h, path)
		switch {
		case err == nil && len(b) > 0:
			return b, nil
		case try == 0 && errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("%w: there is no registry at %s: %w", ErrUnreadable, path, fs.ErrNotExist)
		case err == nil:
			why = fmt.Errorf("%s is empty", path)
		default:
			why = err
		}
		if try == readRetries {
			return nil, fmt.Errorf("%w: %v (tried %d times)", ErrUnreadable, why, try+1)
		}
		fsys.sleep(retryPause[try])
		if d, err := fsys.openDir(filepath.Dir(path)); err == nil {
			d.Close()
		}
	}
}

func readOnce(h home.Home, path string) ([]byte, error) {
	f, err := fsys.open(h, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := h.ReadMax(path, f, maxRegistry)
	if errors.Is(err, home.ErrTooLarge) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}
