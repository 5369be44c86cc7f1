package wake

import (
	"strconv"

	"github.com/sotcomm/sotd/filer"
)

// FilerUnread is Loop.Unread over f: the count is the one unread rule
// (filer.IsUnread) over the lines past the handle's cursor, read as a poll
// reads them and never moving the cursor. The batch is named by its last
// unread line, its position and its cursor hash, so new mail names a new batch
// while a batch read in part names the same one, and an inbox cut back and
// refilled to the same length is not taken for the old batch.
func FilerUnread(f *filer.Filer) func(handle string) (int, string, error) {
	return func(handle string) (int, string, error) {
		b, err := f.ReadNew(handle)
		if err != nil {
			return 0, "", err
		}
		n, last := 0, -1
		for i, line := range b.Lines {
			if filer.IsUnread(line, handle) {
				n, last = n+1, i
			}
		}
		if n == 0 {
			return 0, "", nil
		}
		return n, strconv.Itoa(b.Start+last) + ":" + filer.LineHash(b.Lines[last]), nil
	}
}
