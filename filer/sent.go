package filer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
	raw, err := f.Home.ReadFile(p.inbox)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the inbox for @%s could not be read (%v)", handle, bareErr(err))
	}
	lines, _ := splitLines(raw)
	var out []Receipt
	for i, l := range lines {
		var ln Line
		if json.Unmarshal(l, &ln) != nil || ln.From != sender {
			continue
		}
		out = append(out, Receipt{Line: ln, Read: i < b.Start})
	}
	if len(out) > max {
		out = out[len(out)-max:]
	}
	return out, nil
}
