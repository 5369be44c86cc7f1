package home

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
)

var tmpSeq atomic.Int64

// WriteAtomic replaces path with data: a 0600 temp file beside it, flushed, then
// renamed over path, then the folder flushed, so a reader sees the old bytes or the
// new ones and never a torn file.
func WriteAtomic(path string, data []byte) error {
	if err := replace(path, data, (*os.File).Sync); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// WriteUnflushed replaces path with data as WriteAtomic does, but flushes
// nothing: a reader never sees a torn file, but a crash may leave the old
// bytes, or none. For a record that only spares work and is as good lost.
func WriteUnflushed(path string, data []byte) error {
	return replace(path, data, func(*os.File) error { return nil })
}

// replace writes data to a temp file beside path, syncing it with sync, and
// renames it over path.
func replace(path string, data []byte, sync func(*os.File) error) error {
	tmp := path + ".tmp." + strconv.Itoa(os.Getpid()) + "." + strconv.FormatInt(tmpSeq.Add(1), 10)
	if err := WriteNew(tmp, data, sync); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// SyncDir flushes a folder so a rename or create in it survives a crash. Windows
// cannot open a folder for flushing; there the rename is already durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("flush folder %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !syncUnsupported(err) {
		return fmt.Errorf("flush folder %s: %w", dir, err)
	}
	return nil
}
