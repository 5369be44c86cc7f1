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
		// Counted as read, keeping no line: an inbox may be large.
		n, last, hash := 0, -1, ""
		b, err := f.ReadEach(handle, func(i int, line []byte) error {
			if filer.IsUnread(line, handle) {
				n, last, hash = n+1, i, filer.LineHash(line)
			}
			return nil
		})
		if err != nil {
			return 0, "", err
		}
		if n == 0 {
			return 0, "", nil
		}
		return n, strconv.Itoa(b.Start+last) + ":" + hash, nil
	}
}
