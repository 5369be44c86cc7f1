package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/sotcomm/sotd/home"
)

var skeletonSeq atomic.Int64

// Ensure makes the comm home and, when there is no registry.json, publishes an
// empty one stamped with ProtocolVersion: a flushed skeleton
// registry.json.new.<pid>.<n> (0600) hard-linked to the name. A link never
// replaces anything, so an existing registry, even an empty or corrupt one, is
// never replaced, truncated or repaired; a link that finds the name taken means
// another writer published first, which is as good.
func Ensure(h home.Home) error {
	if err := h.Ensure(); err != nil {
		return err
	}
	path := h.Registry()
	// Any stat error (ESTALE during another host's rename included) goes on to the
	// link, which fails on an existing name: a wrong stat costs a skeleton, never a
	// registry.
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	body, err := (&Doc{ProtocolVersion: ProtocolVersion, Agents: map[string]*Entry{}}).Marshal()
	if err != nil {
		return err
	}
	tmp := path + ".new." + strconv.Itoa(os.Getpid()) + "." + strconv.FormatInt(skeletonSeq.Add(1), 10)
	defer os.Remove(tmp)
	if err := writeFlushed(tmp, body); err != nil {
		return fmt.Errorf("could not create the registry %s: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		return fmt.Errorf("could not create the registry %s: cannot hard-link in %s: %w", path, h.Dir, err)
	}
	return home.SyncDir(h.Dir)
}

// writeFlushed creates path (0600, failing if it exists) holding data, flushed. A
// failed flush is a *flushError, which the protocol names apart from other failures.
func writeFlushed(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, home.FileMode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		if err = fsys.sync(f); err != nil {
			err = &flushError{err}
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

type flushError struct{ err error }

func (e *flushError) Error() string { return e.err.Error() }
func (e *flushError) Unwrap() error { return e.err }
