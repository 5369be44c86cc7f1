package filer

import (
	"encoding/json"
	"fmt"
	"io"
)

// Receipt is one line a sender filed into an inbox, and whether the inbox's
// reader has been shown it: its cursor is past the line.
type Receipt struct {
	Line
	Read bool `json:"read"`
}

// Receipts are the last max lines from sender in handle's inbox, oldest first.
// It reads without the lock: only newline-terminated lines count, so a line
// being appended is simply not seen yet, and nothing is written.
func (f *Filer) Receipts(handle, sender string, max int) ([]Receipt, error) {
	p, err := f.paths(handle)
	if err != nil {
		return nil, err
	}
	m, err := f.mark(p)
	if err != nil {
		return nil, err
	}
	src, b, _, _, err := placeInbox(f.Home, p.inbox, handle, m, nil)
	if err != nil {
		return nil, err
	}
	defer src.close()
	if max <= 0 {
		return nil, nil
	}
	// Streamed from the first line, keeping only the last max receipts: an
	// inbox may be far larger than what is shown of it.
	var out []Receipt
	s := newLineScanner(io.NewSectionReader(src.r, 0, src.size))
	for i := 0; s.next(); i++ {
		var ln Line
		if json.Unmarshal(s.line, &ln) != nil || ln.From != sender {
			continue
		}
		if len(out) == max {
			out = append(out[:0], out[1:]...)
		}
		out = append(out, Receipt{Line: ln, Read: i < b.Start})
	}
	if s.err != nil {
		return nil, fmt.Errorf("the inbox for @%s could not be read (%v)", handle, bareErr(s.err))
	}
	return out, nil
}
