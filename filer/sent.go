package filer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
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
	b, _, _, err := readInbox(f.Home, p.inbox, handle, m, nil)
	if err != nil {
		return nil, err
	}
	if max <= 0 {
		return nil, nil
	}
	inbox, err := f.Home.OpenFile(p.inbox, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the inbox for @%s could not be read (%v)", handle, bareErr(err))
	}
	defer inbox.Close()
	// Streamed, keeping only the last max receipts: an inbox may be far larger
	// than what is shown of it.
	var out []Receipt
	s := newLineScanner(inbox)
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
