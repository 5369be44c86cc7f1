//go:build linux || darwin

package reglock

import (
	"fmt"

	"github.com/sotcomm/sotd/machine"
)

// resolve is machine.RealPath with the FAILED line's words for its failure.
func resolve(dir string) (string, error) {
	p, err := machine.RealPath(dir)
	if err != nil {
		return "", fmt.Errorf("the comm home's folder %s cannot be resolved (%v), so no read of it is proved fresh", dir, err)
	}
	return p, nil
}
