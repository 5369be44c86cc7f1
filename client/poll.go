package client

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/registry"
)

// Poll shows the lines past this session's cursor, then moves the cursor past
// them. A busy inbox exits 75 and moves nothing.
func (s *Session) Poll(asJSON bool) int {
	if !s.admitted() {
		return ExitFailed
	}
	me, err := s.Me()
	if err != nil {
		s.out("FAILED: %v; nothing was read", err)
		return ExitFailed
	}
	d, err := registry.ReadRows(s.Home, me)
	if err != nil {
		s.out("FAILED: the registry could not be read, so @%s's row binding is unknown; nothing was read", me)
		s.warn("sotd: %v", err)
		return ExitFailed
	}
	if why := s.bindingRefusal(d.Agents[me], me); why != "" {
		s.out("FAILED: %s; nothing was read", why)
		return ExitFailed
	}
	f := filer.New(s.Home)
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

// showLine renders an inbox line for a person: "@from (ts): body", a body of
// several lines below its header and indented, control characters escaped
// (printable). A line that is not a frame is shown as it is, escaped alike, so
// nothing filed is ever hidden.
func showLine(raw []byte) string {
	var f struct {
		From json.RawMessage `json:"from"`
		To   json.RawMessage `json:"to"`
		Msg  json.RawMessage `json:"msg"`
		TS   json.RawMessage `json:"ts"`
	}
	var l filer.Line
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
		return "(unparsed line) " + printable(string(raw), false)
	}
	tag := ""
	if l.To == "" {
		tag = ", broadcast"
	}
	body := printable(l.Msg, true)
	if strings.Contains(body, "\n") {
		body = bodyLines(body)
	}
	return "@" + printable(l.From, false) + " (" + printable(l.TS, false) + tag + "): " + body
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
