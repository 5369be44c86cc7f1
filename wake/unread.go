package wake

import "github.com/sotcomm/sotd/filer"

// FilerUnread is Loop.Unread over f: the count is the one unread rule
// (filer.IsUnread) over the lines past the handle's cursor, read as a poll
// reads them and never moving the cursor. The batch is named as
// filer.LastUnread names it.
func FilerUnread(f *filer.Filer) func(handle string) (int, string, error) {
	return func(handle string) (int, string, error) {
		b, err := f.ReadNew(handle)
		if err != nil {
			return 0, "", err
		}
		n, last := filer.LastUnread(b, handle)
		if n == 0 {
			return 0, "", nil
		}
		return n, last.String(), nil
	}
}
