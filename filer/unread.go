package filer

import (
	"encoding/json"
	"unicode/utf8"
)

// maxDepth is the deepest nesting a strict reader accepts: serde_json, the wake's
// parser, refuses a 128th level.
const maxDepth = 127

// IsUnread is the one unread rule: line is a strict JSON object whose to is a
// string equal to handle and whose from is a string other than handle. A broadcast
// copy (to ""), another handle's line, one from handle itself, and any line that is
// not strict JSON (invalid UTF-8, a byte-order mark, a number out of range, nesting
// past 127) is shown at the next poll but never counted.
func IsUnread(line []byte, handle string) bool {
	if !utf8.Valid(line) || !shallow(line) {
		return false
	}
	// Decoding every value, not only to and from, refuses a number out of range
	// anywhere in the line, as a strict reader does.
	var obj map[string]any
	if json.Unmarshal(line, &obj) != nil || obj == nil {
		return false
	}
	to, ok := obj["to"].(string)
	if !ok || to != handle {
		return false
	}
	from, ok := obj["from"].(string)
	return ok && from != handle
}

// shallow reports whether JSON text nests objects and arrays no deeper than maxDepth.
func shallow(b []byte) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > maxDepth {
				return false
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return true
}

// CountUnread counts the lines of b that IsUnread counts for handle.
func CountUnread(b Batch, handle string) int {
	n := 0
	for _, l := range b.Lines {
		if IsUnread(l, handle) {
			n++
		}
	}
	return n
}

// Unread counts handle's unread lines past its cursor, reading as ReadNew does and
// never writing the cursor. A caller that must name a lock fault calls ReadNew and
// CountUnread itself.
func (f *Filer) Unread(handle string) (int, error) {
	b, err := f.ReadNew(handle)
	if err != nil {
		return 0, err
	}
	return CountUnread(b, handle), nil
}

// Tally is Unread's count kept from one count to the next, so that counting
// again after lines were appended reads only those lines (Recount). The zero
// Tally has counted nothing.
type Tally struct {
	N int // handle's unread lines past its cursor, at the last count
	// cur is the cursor the count was made from, and past the place just after
	// the last line counted; both set only when a line was read.
	cur  Cursor
	past index
}

// continues reports whether a read from m's cursor may go on after the lines t
// counted: t counted some, from the same cursor, read as it was then. Where
// the cursor resumes was found within those lines, so lines appended after
// them do not move it; a garbled cursor reads as no cursor, and its place is
// recovered from the offset index, so it is never taken for t's.
func (t *Tally) continues(m mark) bool {
	return t != nil && t.past.count > 0 && m.garbled == nil && m.cur == t.cur
}

// Recount is Unread again, after t: when handle's cursor is the one t counted
// from and the inbox still holds t's last line where it was (the offset
// index's check), the lines before it are as they were, so only the lines
// after it are read and counted and added to t's count; otherwise every line
// past the cursor is counted, as Unread does. The inbox is read as ReadNew
// reads it, and the cursor is never written.
func (f *Filer) Recount(handle string, t Tally) (Tally, error) {
	b, cur, continued, err := f.read(handle, &t)
	if err != nil {
		return Tally{}, err
	}
	n := CountUnread(b, handle)
	if continued {
		n += t.N
	}
	next := Tally{N: n}
	switch {
	case len(b.Lines) > 0:
		next.cur, next.past = cur, index{count: b.Start + len(b.Lines), off: b.end, hash: LineHash(b.Lines[len(b.Lines)-1])}
	case continued:
		next.cur, next.past = t.cur, t.past
	}
	return next, nil
}
