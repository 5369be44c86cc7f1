package registry

import (
	"fmt"
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
	if err := home.WriteNew(tmp, body, flushed); err != nil {
		return fmt.Errorf("could not create the registry %s: %w", path, err)
	}
	created, err := home.LinkNew(tmp, path)
	if err != nil {
		return fmt.Errorf("could not create the registry %s: %w", path, err)
	}
	if !created {
		return nil
	}
	return home.SyncDir(h.Dir)
}

// flushed is fsys.sync with its failure marked as a *flushError, which the
// protocol names apart from other failures.
func flushed(f *os.File) error {
	if err := fsys.sync(f); err != nil {
		return &flushError{err}
	}
	return nil
}

type flushError struct{ err error }

func (e *flushError) Error() string { return e.err.Error() }
func (e *flushError) Unwrap() error { return e.err }
