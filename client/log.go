package client

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/registry"
)

// LogArgs is what `sotd log` was asked.
type LogArgs struct {
	With  string    // only the lines between this session and this handle
	Since time.Time // only the lines filed at or after this time; zero for all
	Grep  string    // only the lines whose message holds this text, in any case
	JSON  bool
}

// LogSkew is how much earlier than --since a log read seeks: lines are filed
// in time order, each stamped by its writer's clock, so a line a box whose
// clock is behind filed after an earlier one may carry an earlier time. Lines
// before --since itself are still left out.
const LogSkew = time.Hour

// Log shows this session's conversation history from the inboxes, read lines
// included, oldest first: every line of its own inbox, and every line it sent
// that an inbox in this home holds. A receiver whose inbox is on another box's
// home is not read: its box files that mail, and a note names such receivers
// (sotd sent asks their boxes for the last lines). Each inbox is streamed, never
// held whole, and --since seeks into it by time.
func (s *Session) Log(a LogArgs) int {
	if a.With != "" {
		if err := home.CheckHandle(a.With); err != nil {
			s.out("FAILED: %v; nothing was read", err)
			return ExitFailed
		}
	}
	me, _, ok := s.ownInbox()
	if !ok {
		return ExitFailed
	}
	f := s.filer()
	sources, notes, err := s.logSources(f, me, a)
	if err != nil {
		s.out("FAILED: %v; nothing was read", err)
		return ExitFailed
	}
	defer func() {
		for _, src := range sources {
			src.Close()
		}
	}()
	note := s.out
	if a.JSON {
		note = s.warn
	}
	w := bufio.NewWriterSize(s.Stdout, 64<<10)
	if a.JSON {
		w.WriteByte('[')
	}
	shown, senders, err := writeLog(w, me, a, sources)
	switch {
	case err != nil:
		if a.JSON {
			w.WriteByte('\n')
		}
		w.Flush()
		s.out("FAILED: %v; the history above is cut short", err)
		return ExitFailed
	case a.JSON:
		w.WriteString("]\n")
	case shown == 0:
		writeLine(w, noHistory(me, a))
	}
	if err := w.Flush(); err != nil {
		s.warn("sotd: the history could not be written (%v)", err)
		return ExitFailed
	}
	if a.With == "" {
		delete(senders, me)
		if away := s.filedElsewhere(f, slices.Sorted(maps.Keys(senders))); len(away) > 0 {
			notes = append(notes, elsewhere(me, away))
		}
	}
	for _, n := range notes {
		note("%s", printable(n, false))
	}
	return ExitOK
}

// logSources opens the inboxes a log reads: this session's, and those that may
// hold lines it sent (@with's alone, or every other inbox of this home). One
// that cannot be read is a note, not a failure; this session's own is a failure.
func (s *Session) logSources(f *filer.Filer, me string, a LogArgs) (sources []*filer.History, notes []string, err error) {
	seek := time.Time{}
	if !a.Since.IsZero() {
		seek = a.Since.Add(-LogSkew)
	}
	own, err := f.OpenHistory(me, seek)
	if err != nil {
		return nil, nil, err
	}
	sources = append(sources, own)
	var others []string
	switch {
	case a.With == me:
	case a.With != "":
		if away := s.filedElsewhere(f, []string{a.With}); len(away) > 0 {
			return sources, []string{elsewhere(me, away)}, nil
		}
		others = []string{a.With}
	default:
		if others, err = f.Inboxes(); err != nil {
			own.Close()
			return nil, nil, err
		}
	}
	for _, h := range others {
		if h == me {
			continue
		}
		src, err := f.OpenHistory(h, seek)
		if err != nil {
			notes = append(notes, fmt.Sprintf("note: lines @%s sent @%s are not shown: %v", me, h, err))
			continue
		}
		sources = append(sources, src)
	}
	return sources, notes, nil
}

// elsewhere is the note for receivers whose mail another home files.
func elsewhere(me string, away []string) string {
	if len(away) == 1 {
		return fmt.Sprintf("note: @%s is not listed in this home: any line @%s sent it is filed on the box that holds it, which sotd log does not read; sotd sent @%s asks that box for the last %d and whether each was read", away[0], me, away[0], SentMax)
	}
	return fmt.Sprintf("note: @%s are not listed in this home: any line @%s sent them is filed on the boxes that hold them, which sotd log does not read; sotd sent asks those boxes for the last %d of each and whether each was read", strings.Join(away, ", @"), me, SentMax)
}

// filedElsewhere are those of handles whose mail this home does not file: it
// holds no inbox for them, and its registry does not list them (a handle it
// lists gets its inbox here with its first line). An unreadable registry names
// none, so nothing is called elsewhere on a guess.
func (s *Session) filedElsewhere(f *filer.Filer, handles []string) []string {
	var away []string
	var d *registry.Doc
	for _, h := range handles {
		if f.Has(h) {
			continue
		}
		if d == nil {
			var err error
			if d, err = registry.Read(s.Home); err != nil {
				return nil
			}
		}
		if _, ok := d.Agents[h]; !ok {
			away = append(away, h)
		}
	}
	return away
}

// noHistory says what an empty log looked for.
func noHistory(me string, a LogArgs) string {
	line := fmt.Sprintf("no line in @%s's history here", me)
	if a.With != "" {
		line += " with @" + a.With
	}
	if !a.Since.IsZero() {
		line += " since " + a.Since.UTC().Format(time.RFC3339)
	}
	if a.Grep != "" {
		line += " holds " + printable(fmt.Sprintf("%q", a.Grep), false)
	}
	return line
}

// logLine is one line of the history as the merge holds it.
type logLine struct {
	raw    []byte // the line as filed, for an unparsed one
	frame  frame
	ok     bool // frame parsed
	inbox  string
	read   bool
	seq    int    // which source, to keep the merge stable
	at     string // the time it is merged by: its ts, or an unparsed line's previous line's
	minted string // its id's time (the first ten characters of a sotd id), finer than ts's second
}

// writeLog merges the sources by time and writes each line a passes, in text
// or as JSON elements. senders are the handles whose lines to me were read.
func writeLog(w *bufio.Writer, me string, a LogArgs, sources []*filer.History) (shown int, senders map[string]bool, err error) {
	senders = map[string]bool{}
	want := logFilter(me, a)
	q := &logQueue{}
	at := make([]string, len(sources))
	next := func(i int) error {
		src := sources[i]
		for src.Next() {
			l, keep := want(src, i == 0)
			if l.ok {
				at[i] = l.frame.TS
				if i == 0 {
					senders[l.frame.From] = true
				}
			}
			if keep {
				l.seq, l.at = i, at[i]
				if mail.IsID(l.frame.ID) {
					l.minted = strings.ToUpper(l.frame.ID[:10])
				}
				heap.Push(q, l)
				return nil
			}
		}
		return src.Err()
	}
	for i := range sources {
		if err := next(i); err != nil {
			return shown, senders, err
		}
	}
	for q.Len() > 0 {
		l := heap.Pop(q).(logLine)
		if a.JSON {
			err = writeLogJSON(w, shown, l)
		} else {
			err = writeLine(w, showLogLine(l))
		}
		if err != nil {
			return shown, senders, err
		}
		shown++
		if err := next(l.seq); err != nil {
			return shown, senders, err
		}
	}
	return shown, senders, nil
}

// logFilter is which lines of a source the log shows: in this session's own
// inbox (own) every line, or @with's alone; in another's only the lines this
// session sent. --since and --grep leave out what they do not name; an
// unparsed line, which names no sender, time or text, is shown only in this
// session's own unfiltered history, so nothing filed there is hidden.
func logFilter(me string, a LogArgs) func(src *filer.History, own bool) (logLine, bool) {
	needle := strings.ToLower(a.Grep)
	meBytes := []byte(me)
	return func(src *filer.History, own bool) (logLine, bool) {
		// A handle is never escaped in JSON: a line that does not hold the
		// sender's name is not that sender's, and is not decoded.
		if !own && !bytes.Contains(src.Line, meBytes) {
			return logLine{}, false
		}
		l := logLine{inbox: src.Handle, read: src.Read}
		l.frame, l.ok = parseFrame(src.Line)
		if !l.ok {
			l.raw = bytes.Clone(src.Line)
			return l, own && a.With == "" && a.Since.IsZero() && a.Grep == ""
		}
		switch {
		case !own && l.frame.From != me:
			return l, false
		case own && a.With != "" && l.frame.From != a.With:
			return l, false
		case !a.Since.IsZero() && !atOrAfter(l.frame.TS, a.Since):
			return l, false
		case needle != "" && !strings.Contains(strings.ToLower(l.frame.Msg), needle):
			return l, false
		}
		return l, true
	}
}

// atOrAfter reports whether stamp is a time at or after t; a stamp that does not
// parse is not.
func atOrAfter(stamp string, t time.Time) bool {
	ts, err := time.Parse(time.RFC3339Nano, stamp)
	return err == nil && !ts.Before(t)
}

// showLogLine renders a history line as poll renders one, with its receiver and
// whether it was read: "@from -> @to (ts, id SHORT, read): body". A broadcast
// copy's receiver is the inbox that holds it.
func showLogLine(l logLine) string {
	if !l.ok {
		return unparsedLine(l.raw)
	}
	state := "unread"
	if l.read {
		state = "read"
	}
	return "@" + printable(l.frame.From, false) + " -> @" + printable(l.inbox, false) +
		" (" + strings.Join(append(l.frame.tags(), state), ", ") + "): " + l.frame.body()
}

// logJSON is one element of `sotd log --json`: the line's fields as filed, the
// inbox that holds it, its short id, and whether it was read. An unparsed line
// is its raw text alone.
type logJSON struct {
	From      string `json:"from,omitempty"`
	To        string `json:"to"`
	Inbox     string `json:"inbox"`
	Msg       string `json:"msg,omitempty"`
	TS        string `json:"ts,omitempty"`
	ID        string `json:"id,omitempty"`
	Short     string `json:"short_id,omitempty"`
	InReplyTo string `json:"in_reply_to,omitempty"`
	Read      bool   `json:"read"`
	Raw       string `json:"raw,omitempty"`
}

func writeLogJSON(w *bufio.Writer, i int, l logLine) error {
	e := logJSON{Inbox: l.inbox, Read: l.read}
	if l.ok {
		fr := l.frame
		e.From, e.To, e.Msg, e.TS, e.ID, e.InReplyTo = fr.From, fr.To, fr.Msg, fr.TS, fr.ID, fr.InReplyTo
		if fr.ID != "" {
			e.Short = mail.ShortID(fr.ID)
		}
	} else {
		e.Raw = string(l.raw)
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if i > 0 {
		w.WriteByte(',')
	}
	_, err = w.Write(b)
	return err
}

// logQueue orders the sources' next lines by time, then by source and order
// read: each source is in time order already, so the merge holds one line per
// source and never a whole inbox. Stamps of one shape sort as text, and so do
// sotd's ids, to the millisecond: a reply filed in the second of the line it
// answers comes after it.
type logQueue []logLine

func (q logQueue) Len() int { return len(q) }
func (q logQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	if q[i].minted != q[j].minted {
		return q[i].minted < q[j].minted
	}
	return q[i].seq < q[j].seq
}
func (q logQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *logQueue) Push(x any)   { *q = append(*q, x.(logLine)) }
func (q *logQueue) Pop() any {
	old := *q
	l := old[len(old)-1]
	*q = old[:len(old)-1]
	return l
}

// ParseSince reads log's --since: an age back from now (90m, 12h, 30d), a time
// (2026-05-29T18:04:00Z, any RFC 3339 offset), or a day (2026-05-29, from its
// start in UTC, the zone every line is stamped in).
func ParseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if age, err := ParseAge(s); err == nil {
		return now.Add(-age), nil
	}
	return time.Time{}, fmt.Errorf("%q is neither an age (90m, 12h, 30d) nor a time (2026-05-29T18:04:00Z, or a day as 2026-05-29)", s)
}
