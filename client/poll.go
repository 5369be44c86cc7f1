package client

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/registry"
)

// Poll shows the lines past this session's cursor, then moves the cursor past
// them. A busy inbox exits 75 and moves nothing.
func (s *Session) Poll(asJSON bool) int {
	me, d, ok := s.ownInbox()
	if !ok {
		return ExitFailed
	}
	f := s.filer()
	r, err := f.Begin(me)
	if errors.Is(err, filer.ErrBusy) {
		s.out("the inbox for @%s is being written; nothing was read and the cursor stays (exit 75: try again)", me)
		return ExitBusy
	}
	if err != nil {
		s.out("FAILED: the inbox for @%s could not be read: %v", me, err)
		return ExitFailed
	}
	// With --json, stdout is one JSON array and the notes go to stderr.
	note := s.out
	if asJSON {
		note = s.warn
	}
	if r.Fault != "" {
		note("WARNING: the inbox lock for @%s could not be taken (%s); read unlocked, covered by the hashed cursor", me, r.Fault)
	}
	for _, n := range r.Notes {
		note("%s", n)
	}
	// Each line is shown as it is read, none kept: an inbox may hold a
	// gigabyte of new lines.
	w := bufio.NewWriterSize(s.Stdout, 64<<10)
	show := func(_ int, l []byte) error { return writeLine(w, showLine(l)) }
	if asJSON {
		w.WriteByte('[')
		show = func(i int, l []byte) error { return writeJSONElement(w, i, l) }
	}
	b, err := r.Each(show)
	switch {
	case err != nil:
		if asJSON {
			w.WriteByte('\n')
		}
		w.Flush()
		s.out("FAILED: the inbox for @%s could not be read: %v; the cursor stays, so every line shows again at the next poll", me, err)
		return ExitFailed
	case asJSON:
		w.WriteString("]\n")
	case b.Len() == 0:
		writeLine(w, fmt.Sprintf("no new mail for @%s", me))
	}
	if err := w.Flush(); err != nil {
		s.warn("sotd: the lines could not be written (%v); the cursor stays, so they show again at the next poll", err)
		return ExitFailed
	}
	if err := f.Commit(me, b); err != nil {
		s.out("FAILED: the read cursor for @%s could not be written (%v); the lines above will show again", me, err)
		return ExitFailed
	}
	s.touch(d, me)
	return ExitOK
}

// ownInbox is the handle whose inbox a reader of this session's own mail
// (poll, log) reads, and the registry's row for it: this session must be
// admitted, joined, and hold the handle (no other row binds it). Else it
// prints the FAILED line and ok is false.
func (s *Session) ownInbox() (me string, d *registry.Doc, ok bool) {
	if !s.admitted() {
		return "", nil, false
	}
	me, err := s.Me()
	if err != nil {
		s.out("FAILED: %v; nothing was read", err)
		return "", nil, false
	}
	d, err = s.ReadRows(me)
	if err != nil {
		s.out("FAILED: the registry could not be read, so @%s's row binding is unknown; nothing was read", me)
		s.warn("sotd: %v", err)
		return "", nil, false
	}
	if why := s.bindingRefusal(d.Agents[me], me); why != "" {
		s.out("FAILED: %s; nothing was read", why)
		return "", nil, false
	}
	return me, d, true
}

// showLine renders an inbox line for a person: "@from (ts, id SHORT): body",
// a body of several lines below its header and indented, control characters
// escaped (printable). A line that is not a frame is shown as it is, escaped
// alike, so nothing filed is ever hidden.
func showLine(raw []byte) string {
	l, ok := parseFrame(raw)
	if !ok {
		return unparsedLine(raw)
	}
	return "@" + printable(l.From, false) + " (" + strings.Join(l.tags(), ", ") + "): " + l.body()
}

// unparsedLine shows a line that is not a frame as it is, escaped.
func unparsedLine(raw []byte) string { return "(unparsed line) " + printable(string(raw), false) }

// frame is an inbox line's fields as a person is shown them: decoded by
// jsonString, so a byte that is not UTF-8 is kept for printable to show.
type frame struct{ From, To, Msg, TS, ID, InReplyTo string }

// parseFrame reads raw as a frame: false when it is not a JSON object, its
// from is missing or empty, or from, to, msg or ts is not a string. An id or
// in_reply_to that is not a string (another writer's) is no id.
func parseFrame(raw []byte) (frame, bool) {
	var f struct {
		From      json.RawMessage `json:"from"`
		To        json.RawMessage `json:"to"`
		Msg       json.RawMessage `json:"msg"`
		TS        json.RawMessage `json:"ts"`
		ID        json.RawMessage `json:"id"`
		InReplyTo json.RawMessage `json:"in_reply_to"`
	}
	var l frame
	ok := json.Unmarshal(raw, &f) == nil
	for _, field := range []struct {
		raw json.RawMessage
		to  *string
	}{{f.From, &l.From}, {f.To, &l.To}, {f.Msg, &l.Msg}, {f.TS, &l.TS}} {
		if ok && field.raw != nil {
			*field.to, ok = jsonString(field.raw)
		}
	}
	if !ok || l.From == "" {
		return frame{}, false
	}
	l.ID, _ = jsonString(f.ID)
	l.InReplyTo, _ = jsonString(f.InReplyTo)
	return l, true
}

// tags are what a line's header shows in parentheses: its time, "broadcast"
// for a broadcast copy, its short id, which a reply names (sotd send
// --reply-to), and the short id of the line it answers.
func (l frame) tags() []string {
	tags := []string{printable(l.TS, false)}
	if l.To == "" {
		tags = append(tags, "broadcast")
	}
	if l.ID != "" {
		tags = append(tags, "id "+printable(mail.ShortID(l.ID), false))
	}
	if l.InReplyTo != "" {
		tags = append(tags, "re "+printable(mail.ShortID(l.InReplyTo), false))
	}
	return tags
}

// body is the message escaped, a body of several lines below its header.
func (l frame) body() string {
	body := printable(l.Msg, true)
	if strings.Contains(body, "\n") {
		body = bodyLines(body)
	}
	return body
}

// writeLine writes s and a newline.
func writeLine(w *bufio.Writer, s string) error {
	w.WriteString(s)
	return w.WriteByte('\n')
}

// writeJSONElement writes inbox line l as element i of poll's JSON array, byte
// for byte as filed; a line that is not JSON (a damaged file) is carried as a
// JSON string, so the array always parses and nothing filed is hidden.
func writeJSONElement(w *bufio.Writer, i int, l []byte) error {
	if i > 0 {
		w.WriteByte(',')
	}
	if !json.Valid(l) {
		l, _ = json.Marshal(string(l))
	}
	_, err := w.Write(l)
	return err
}

// jsonString is JSON string literal q unquoted as encoding/json does, but for
// a byte that is not UTF-8 (a line some other writer filed): encoding/json
// makes it U+FFFD, and jsonString keeps it, so printable shows it as \x and its
// two hex digits. Each run of escapes is unquoted by encoding/json, so a
// surrogate pair, and a lone half of one, read as they do there; the bytes
// between runs are taken as they are. false: q is not a JSON string.
func jsonString(q []byte) (string, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	var b strings.Builder
	for rest := q[1 : len(q)-1]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\\')
		if i < 0 {
			b.Write(rest)
			break
		}
		b.Write(rest[:i])
		j := i
		for j < len(rest) && rest[j] == '\\' {
			if j+1 < len(rest) && rest[j+1] == 'u' {
				j += 6
			} else {
				j += 2
			}
		}
		if j > len(rest) {
			return "", false
		}
		var esc string
		if json.Unmarshal(append(append([]byte{'"'}, rest[i:j]...), '"'), &esc) != nil {
			return "", false
		}
		b.WriteString(esc)
		rest = rest[j:]
	}
	return b.String(), true
}
