package filer

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
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
//
// It reads what a decode into map[string]any would keep of to and from (the last
// of a repeated key, escapes undone) and refuses what that decode refuses, a
// number that does not fit a float64 anywhere in the line included, without
// building the map: every filed line is counted once by the status page.
func IsUnread(line []byte, handle string) bool {
	if !utf8.Valid(line) || !shallow(line) || !json.Valid(line) {
		return false
	}
	to, from, ok := addressOf(line)
	return ok && to.isString && string(to.s) == handle && from.isString && string(from.s) != handle
}

// member is an object member's value as IsUnread reads it.
type member struct {
	isString bool
	s        []byte
}

// addressOf reads the top-level to and from members of valid, a line json.Valid
// passed; ok is false when it is not an object or holds a number out of range.
func addressOf(valid []byte) (to, from member, ok bool) {
	s := jsonScan{b: valid}
	if s.space(); s.peek() != '{' {
		return member{}, member{}, false
	}
	s.i++
	for {
		if s.space(); s.peek() == '}' {
			return to, from, true
		}
		key := unquote(s.str())
		s.space()
		s.i++ // the colon
		s.space()
		raw, fits := s.value()
		if !fits {
			return member{}, member{}, false
		}
		var m member
		if raw[0] == '"' {
			m = member{isString: true, s: unquote(raw)}
		}
		switch string(key) {
		case "to":
			to = m
		case "from":
			from = m
		}
		if s.space(); s.peek() == ',' {
			s.i++
		}
	}
}

// unquote is a JSON string token's text, as encoding/json reads it.
func unquote(tok []byte) []byte {
	if bytes.IndexByte(tok, '\\') < 0 {
		return tok[1 : len(tok)-1]
	}
	var s string
	json.Unmarshal(tok, &s) // the token is valid: json.Valid passed its line
	return []byte(s)
}

// jsonScan walks text that json.Valid passed, so it checks nothing but numbers.
type jsonScan struct {
	b []byte
	i int
}

func (s *jsonScan) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *jsonScan) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// str is the string token at i, quotes included.
func (s *jsonScan) str() []byte {
	start := s.i
	for s.i++; s.b[s.i] != '"'; s.i++ {
		if s.b[s.i] == '\\' {
			s.i++
		}
	}
	s.i++
	return s.b[start:s.i]
}

// value is the value token at i, and whether every number in it fits a
// float64, as a decode into any requires.
func (s *jsonScan) value() (raw []byte, fits bool) {
	start, depth := s.i, 0
	for {
		switch c := s.b[s.i]; {
		case c == '"':
			s.str()
		case c == '{' || c == '[':
			depth++
			s.i++
		case c == '}' || c == ']':
			depth--
			s.i++
		case c == '-' || '0' <= c && c <= '9':
			n := s.i
			for s.i < len(s.b) && strings.IndexByte("+-.eE0123456789", s.b[s.i]) >= 0 {
				s.i++
			}
			if _, err := strconv.ParseFloat(string(s.b[n:s.i]), 64); err != nil {
				return nil, false
			}
		case c == 't' || c == 'f' || c == 'n':
			for s.i < len(s.b) && 'a' <= s.b[s.i] && s.b[s.i] <= 'z' {
				s.i++
			}
		default: // a blank, a colon or a comma inside an object or array
			s.i++
		}
		if depth == 0 {
			return s.b[start:s.i], true
		}
	}
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

// counter is a ReadEach visit that counts the lines IsUnread counts for
// handle, keeping none.
func counter(handle string, n *int) func(int, []byte) error {
	return func(_ int, line []byte) error {
		if IsUnread(line, handle) {
			*n++
		}
		return nil
	}
}

// Unseen is handle's unread mail as LastUnread found it.
type Unseen struct {
	N     int    // unread lines past the cursor, by the one rule (IsUnread)
	Last  Cursor // names the batch: the last unread line's; zero when N is 0
	Fault string // a lock fault other than a held lock; the read ran unlocked
}

// LastUnread counts handle's unread lines past its cursor, reading as ReadEach
// does, keeping no line and never writing the cursor, and names the batch they
// make by its last unread line: its cursor (the line's count and hash). New
// mail names a new batch, a batch read in part names the same one, and an inbox
// cut back and refilled to the same length is not taken for the old batch.
// Every "already announced" record (the Stop hook's, the rewake waiter's, the
// row wake's) keys by it.
func (f *Filer) LastUnread(handle string) (Unseen, error) {
	var u Unseen
	b, err := f.ReadEach(handle, func(i int, l []byte) error {
		if IsUnread(l, handle) {
			u.N, u.Last = u.N+1, Cursor{Count: i + 1, Hash: LineHash(l)}
		}
		return nil
	})
	if err != nil {
		return Unseen{}, err
	}
	if u.N > 0 {
		u.Last.Count += b.Start
	}
	u.Fault = b.Fault
	return u, nil
}

// Unread counts handle's unread lines past its cursor, reading as ReadEach does,
// keeping no line, and never writing the cursor.
func (f *Filer) Unread(handle string) (int, error) {
	var n int
	if _, err := f.ReadEach(handle, counter(handle, &n)); err != nil {
		return 0, err
	}
	return n, nil
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
	var n int
	b, cur, continued, err := f.read(handle, &t, counter(handle, &n))
	if err != nil {
		return Tally{}, err
	}
	if continued {
		n += t.N
	}
	next := Tally{N: n}
	switch {
	case b.n > 0:
		next.cur, next.past = cur, index{count: b.Start + b.n, off: b.end, hash: b.last}
	case continued:
		next.cur, next.past = t.cur, t.past
	}
	return next, nil
}
