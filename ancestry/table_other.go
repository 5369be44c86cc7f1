//go:build !linux && !darwin && !windows

package ancestry

import (
	"fmt"
	"runtime"
)

// OSTable has no reader here, so every walk is refused.
func OSTable() (Table, error) {
	return nil, fmt.Errorf("%w: no process table reader for %s", ErrUnreadable, runtime.GOOS)
}
