package machine

import (
	"errors"
	"io/fs"
	"path/filepath"
)

// RealPath is dir as the mount table names it, the path MountOf and statfs want:
// absolute, with its symbolic links followed, as findmnt -T sees it. A folder not
// made yet is served by the mount of its nearest parent, so that parent answers.
func RealPath(dir string) (string, error) {
	p, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return r, nil
		}
		up := filepath.Dir(p)
		if !errors.Is(err, fs.ErrNotExist) || up == p {
			return "", err
		}
		p = up
	}
}
