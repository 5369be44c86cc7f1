// Package refuse holds the refusals the daemon's parts share, so a reader of
// the registry says what went wrong in one set of words wherever it reads.
package refuse

import (
	"errors"
	"io/fs"

	"github.com/sotcomm/sotd/wire"
)

// Unreadable refuses in the registry's own words, which name the file and the
// fix for a damaged one.
func Unreadable(code, notDone string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return wire.Refuse(code, "%s: %v; a join (comm-join.sh) creates it", notDone, err)
	}
	return wire.Refuse(code, "%s: %v", notDone, err)
}
