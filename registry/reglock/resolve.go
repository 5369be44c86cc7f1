//go:build linux || darwin

package reglock

import (
	"fmt"
	"path/filepath"
)

// resolve is dir as the mount table names it: absolute, with symlinks followed.
func resolve(dir string) (string, error) {
	p, err := filepath.EvalSymlinks(dir)
	if err == nil {
		p, err = filepath.Abs(p)
	}
	if err != nil {
		return "", fmt.Errorf("the comm home's folder %s cannot be resolved (%v), so no read of it is proved fresh", dir, err)
	}
	return p, nil
}
