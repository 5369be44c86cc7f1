package filer

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Receipt is one line a sender filed into an inbox, and whether the inbox's
// reader has been shown it: its cursor is past the line. At is where the line
// starts in the inbox.
type Receipt struct {
	Line
	Read bool  `json:"read"`
	At   int64 `json:"-"`
}

// Receipts are the last max lines from sender in handle's inbox, oldest first,
// read from the end back (Last).
func (f *Filer) Receipts(handle, sender string, max int) ([]Receipt, error) {
	return f.Last(handle, max, func(ln Line) bool { return ln.From == sender })
}

// Last are the last max lines of handle's inbox that keep accepts (every line
// that parses when keep is nil), oldest first, read from the last line back
// until max are found: the lines wanted are near the end of an inbox that may
// be far larger. It reads without the lock: only newline-terminated lines
// count, so a line being appended is simply not seen yet, and nothing is
// written.
func (f *Filer) Last(handle string, max int, keep func(Line) bool) ([]Receipt, error) {
	src, b, err := f.openShown(handle)
	if err != nil {
		return nil, err
	}
	defer src.close()
	if max <= 0 {
		return nil, nil
	}
	// A line the cursor's place (b.end) is past has been shown.
	var out []Receipt
	err = eachBack(src.r, src.size, func(start int64, line []byte) bool {
		var ln Line
		if json.Unmarshal(line, &ln) == nil && (keep == nil || keep(ln)) {
			out = append(out, Receipt{Line: ln, Read: start < b.end, At: start})
		}
		return len(out) < max
	})
	if err != nil {
		return nil, fmt.Errorf("the inbox for @%s could not be read (%v)", handle, bareErr(err))
	}
	slices.Reverse(out)
	return out, nil
}
