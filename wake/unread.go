package wake

import "github.com/sotcomm/sotd/filer"

// FilerUnread is Loop.Unread over f: the count is the one unread rule
// (filer.IsUnread) over the lines past the handle's cursor, read as a poll
// reads them and never moving the cursor. The batch is named as
// filer.LastUnread names it.
func FilerUnread(f *filer.Filer) func(handle string) (int, string, error) {
	return func(handle string) (int, string, error) {
		u, err := f.LastUnread(handle)
		if err != nil || u.N == 0 {
			return 0, "", err
		}
		return u.N, u.Last.String(), nil
	}
}
