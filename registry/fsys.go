package registry

import (
	"io"
	"os"
	"time"

	"github.com/sotcomm/sotd/home"
)

// fsys is the file system calls a test replaces to inject the faults root cannot
// provoke by file modes: ESTALE mid-read, a failed fsync, a failed rename.
// open is of the registry itself, opened as every home file is (never through a
// symlink, never waiting on a FIFO, only a regular file); openDir is of its
// folder.
var fsys = struct {
	open    func(h home.Home, path string) (io.ReadCloser, error)
	openDir func(path string) (io.Closer, error)
	sleep   func(time.Duration)
	sync    func(*os.File) error
	rename  func(from, to string) error
}{
	open:    func(h home.Home, p string) (io.ReadCloser, error) { return h.OpenFile(p, os.O_RDONLY, 0) },
	openDir: func(p string) (io.Closer, error) { return os.Open(p) },
	sleep:   time.Sleep,
	sync:    (*os.File).Sync,
	rename:  os.Rename,
}
