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
	tmp := path + ".tmp." + strconv.Itoa(os.Getpid()) + "." + strconv.FormatInt(tmpSeq.Add(1), 10)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FileMode)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, werr)
	}
	return SyncDir(filepath.Dir(path))
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
