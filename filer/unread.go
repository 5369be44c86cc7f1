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
