package registry

import (
	"io"
	"os"
	"time"
)

// fsys is the file system calls a test replaces to inject the faults root cannot
// provoke by file modes: ESTALE mid-read, a failed fsync, a failed rename.
var fsys = struct {
	open   func(path string) (io.ReadCloser, error)
	sleep  func(time.Duration)
	sync   func(*os.File) error
	rename func(from, to string) error
}{
	open:   func(p string) (io.ReadCloser, error) { return os.Open(p) },
	sleep:  time.Sleep,
	sync:   (*os.File).Sync,
	rename: os.Rename,
}
