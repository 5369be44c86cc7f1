package filer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/sotcomm/sotd/home"
)

// Batch is what one read found past the cursor.
type Batch struct {
	Lines [][]byte // the new newline-terminated lines, without their newlines (ReadNew keeps them; ReadEach does not)
	Start int      // lines before the first new one: where the cursor resumed
	Notes []string // sentences for the reader, such as a step-back after a cut-back
	Fault string   // a lock fault other than a held lock; the read ran unlocked
	n     int      // new lines read
	end   int64    // byte offset just past the last line read
	last  string   // LineHash of the last line read
	// recovered is the offset index a cursor that did not parse was recovered
	// from; Commit rewrites the cursor from it even when no line is new.
	recovered *index
}

// Len is how many new lines the read found.
func (b Batch) Len() int { return b.n }

// inboxPaths are a handle's per-handle files, each from home.HandlePath.
type inboxPaths struct{ inbox, lock, cursor, index string }

func (f *Filer) paths(handle string) (inboxPaths, error) {
	var p inboxPaths
	for _, e := range [...]struct {
		k   home.Kind
		dst *string
	}{{home.Inbox, &p.inbox}, {home.InboxLock, &p.lock}, {home.Cursor, &p.cursor}, {home.CursorIndex, &p.index}} {
		s, err := f.Home.HandlePath(e.k, handle)
		if err != nil {
			return inboxPaths{}, err
		}
		*e.dst = s
	}
	return p, nil
}

// mark is what a reader knows of its place before it opens the inbox: the cursor,
// or why it did not parse, and the offset index beside it.
type mark struct {
	cur     Cursor
	garbled error // the cursor's parse error: the place is recovered from ix if it can be
	ix      index
	haveIx  bool
	// The two files as the layout names them, for the notes.
	cursorName, indexName string
}

func (f *Filer) mark(p inboxPaths) (mark, error) {
	cur, garbled, err := readCursor(f.Home, p.cursor)
	if err != nil {
		return mark{}, err
	}
	ix, haveIx, err := readIndex(f.Home, p.index)
	if err != nil {
		return mark{}, err
	}
	return mark{cur: cur, garbled: garbled, ix: ix, haveIx: haveIx,
		cursorName: f.Home.Name(p.cursor), indexName: f.Home.Name(p.index)}, nil
}

// ReadNew reads the lines past handle's cursor once, under the shared inbox lock
// bounded by ReadWait. A lock still held at the bound wraps ErrBusy (try again);
// any other lock fault is named in Batch.Fault and the read runs unlocked, covered
// by the hashed cursor. It never writes the cursor: Commit does, once the batch is
// shown. It keeps every line in Batch.Lines: a reader of an inbox that may be
// large uses ReadEach, or Begin and Each.
func (f *Filer) ReadNew(handle string) (Batch, error) {
	var lines [][]byte
	b, err := f.ReadEach(handle, func(_ int, line []byte) error {
		lines = append(lines, bytes.Clone(line))
		return nil
	})
	b.Lines = lines
	return b, err
}

// ReadEach is ReadNew, handing each new line to visit in turn instead of
// keeping it: Begin, then Each.
func (f *Filer) ReadEach(handle string, visit func(i int, line []byte) error) (Batch, error) {
	r, _, _, err := f.begin(handle, nil)
	if err != nil {
		return Batch{}, err
	}
	return r.Each(visit)
}

// Reading is a read Begin started: Batch holds where it resumes (Start), its
// notes and lock fault; Each reads its lines.
type Reading struct {
	Batch
	handle string
	src    span
}

// Begin starts a read of the lines past handle's cursor, as ReadNew reads
// them, and reads none yet: the caller can show the notes before the lines.
// The lock is held only while the read finds where it resumes and how long the
// inbox is; the lines before that length, which a writer never changes (it
// only appends, and cuts back only an unterminated last line), are read by
// Each after it is let go, so a slow reader never holds off a writer. Each
// must be called, to close the inbox.
func (f *Filer) Begin(handle string) (*Reading, error) {
	r, _, _, err := f.begin(handle, nil)
	return r, err
}

// Each hands every new line to visit in turn (i counts from 0: the line's
// number in the inbox is Start+i+1), keeping none: line is valid only until
// visit returns. An error from visit ends the read and is returned. The batch
// it answers is for Commit, without Lines.
func (r *Reading) Each(visit func(i int, line []byte) error) (Batch, error) {
	defer r.src.close()
	b := r.Batch
	if err := r.src.each(&b, r.handle, visit); err != nil {
		return Batch{}, err
	}
	return b, nil
}

// read is ReadEach, or, given a tally whose cursor is still the inbox's, the
// lines after the last one the tally counted, when the inbox still holds that
// line where it was (continued). cur is the cursor read from.
func (f *Filer) read(handle string, t *Tally, visit func(int, []byte) error) (b Batch, cur Cursor, continued bool, err error) {
	r, cur, continued, err := f.begin(handle, t)
	if err != nil {
		return Batch{}, Cursor{}, false, err
	}
	b, err = r.Each(visit)
	return b, cur, continued, err
}

// begin is Begin, going on after t's lines when t continues (see read).
func (f *Filer) begin(handle string, t *Tally) (r *Reading, cur Cursor, continued bool, err error) {
	p, err := f.paths(handle)
	if err != nil {
		return nil, Cursor{}, false, err
	}
	m, err := f.mark(p)
	if err != nil {
		return nil, Cursor{}, false, err
	}
	var past *index
	if t.continues(m) {
		past = &t.past
	}

	var fault string
	lk, err := f.lock(p.lock, false, f.ReadWait, readerHeld(handle))
	if err != nil {
		var held *lockHeldError
		if errors.As(err, &held) {
			return nil, Cursor{}, false, err
		}
		fault = err.Error() + "; the inbox was read without it"
	}
	src, b, fresh, continued, err := placeInbox(f.Home, p.inbox, handle, m, past)
	if lk.fl != nil {
		lk.release()
	}
	if err != nil {
		return nil, Cursor{}, false, err
	}
	b.Fault = fault
	if fresh != nil {
		if err := writeIndex(p.index, *fresh); err != nil {
			f.log().Warn("read offset index not kept", "handle", handle, "err", err)
		}
	}
	return &Reading{Batch: b, handle: handle, src: src}, m.cur, continued, nil
}

// Commit writes the cursor past b's last line, from the bytes read (never from the
// file again, so a slow display never holds off a writer), and the offset index
// beside it. A batch with no lines writes nothing, unless its place was recovered
// from the offset index: then the garbled cursor is rewritten from it.
func (f *Filer) Commit(handle string, b Batch) error {
	var ix index
	switch {
	case b.n > 0:
		ix = index{count: b.Start + b.n, off: b.end, hash: b.last}
	case b.recovered != nil:
		ix = *b.recovered
	default:
		return nil
	}
	p, err := f.paths(handle)
	if err != nil {
		return err
	}
	if err := writeCursor(p.cursor, Cursor{Count: ix.count, Hash: ix.hash}); err != nil {
		return fmt.Errorf("the read cursor for @%s could not be written (%w); the same lines show again at the next poll", handle, err)
	}
	if err := writeIndex(p.index, ix); err != nil {
		f.log().Warn("read offset index not kept", "handle", handle, "err", err)
	}
	return nil
}

// span is the part of an inbox a read shows: from where it resumes to the
// length the inbox had when the read found that place.
type span struct {
	r     io.ReaderAt
	inbox *os.File // nil when there is no inbox
	from  int64
	size  int64
}

func (s span) close() {
	if s.inbox != nil {
		s.inbox.Close()
	}
}

// placeInbox finds where m resumes, or past instead when past is set and the
// inbox holds it (continued), and opens the span of lines after it; it keeps
// none of them. fresh is an offset index to keep when the read had to count
// lines to agree with the cursor. b holds the place and the notes.
func placeInbox(h home.Home, path, handle string, m mark, past *index) (src span, b Batch, fresh *index, continued bool, err error) {
	src.r = emptyFile{}
	// A folder opens too, and seeking its end answers a size no read can fill;
	// only a regular file is an inbox, and OpenFile refuses anything else.
	inbox, err := h.OpenFile(path, os.O_RDONLY, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err = nil // no inbox yet: no lines
	case errors.Is(err, home.ErrNotRegular):
		return span{}, Batch{}, nil, false, fmt.Errorf("%w; nothing was read", err)
	case err != nil:
		return span{}, Batch{}, nil, false, fmt.Errorf("the inbox for @%s could not be opened (%v); nothing was read", handle, bareErr(err))
	default:
		src.r, src.inbox = inbox, inbox
		if src.size, err = inbox.Seek(0, io.SeekEnd); err != nil {
			src.close()
			return span{}, Batch{}, nil, false, fmt.Errorf("the inbox for @%s could not be measured (%v); nothing was read", handle, bareErr(err))
		}
	}
	var at place
	var notes []string
	var recovered *index
	if past != nil {
		continued, err = past.holds(src.r, src.size)
	}
	switch {
	case err != nil:
	case continued:
		at = place{past.count, past.off}
	case m.garbled != nil:
		at, recovered, notes, err = recoverPlace(src.r, src.size, m)
	default:
		at, fresh, notes, err = resume(src.r, src.size, m.cur, m.ix, m.haveIx, handle)
	}
	if err != nil {
		src.close()
		return span{}, Batch{}, nil, false, fmt.Errorf("the inbox for @%s could not be read (%v); nothing was read", handle, bareErr(err))
	}
	src.from = at.off
	return src, Batch{Start: at.count, Notes: notes, end: at.off, recovered: recovered}, fresh, continued, nil
}

// each hands every complete line of s to visit in turn, keeping none, and
// records in b how many there were, where the last ends and its hash.
func (s span) each(b *Batch, handle string, visit func(int, []byte) error) error {
	sc := newLineScanner(io.NewSectionReader(s.r, s.from, s.size-s.from))
	var lastStart int64
	for sc.next() {
		if err := visit(b.n, sc.line); err != nil {
			return err
		}
		b.n++
		lastStart = s.from + sc.end - int64(len(sc.line)) - 1
	}
	if sc.err != nil {
		return fmt.Errorf("the inbox for @%s could not be read (%v); nothing was read", handle, bareErr(sc.err))
	}
	b.end = s.from + sc.end
	if b.n == 0 {
		return nil
	}
	// Hashed once, read back, rather than kept or hashed line by line.
	last := make([]byte, b.end-1-lastStart)
	if _, err := s.r.ReadAt(last, lastStart); err != nil {
		return fmt.Errorf("the inbox for @%s could not be read (%v); nothing was read", handle, bareErr(err))
	}
	b.last = LineHash(last)
	return nil
}

// place is a position in the inbox: count lines lie before byte off.
type place struct {
	count int
	off   int64
}

// resume finds where the cursor says reading resumes: straight from the offset
// index when it agrees with the cursor and the inbox, else by counting lines.
func resume(r io.ReaderAt, size int64, cur Cursor, ix index, haveIx bool, handle string) (place, *index, []string, error) {
	if cur.Stamp == "" && cur.Count == 0 {
		return place{}, nil, nil, nil
	}
	if haveIx && ix.agrees(cur) {
		ok, err := ix.holds(r, size)
		if err != nil {
			return place{}, nil, nil, err
		}
		if ok {
			return place{ix.count, ix.off}, nil, nil, nil
		}
	}
	s := newLineScanner(io.NewSectionReader(r, 0, size))
	if cur.Stamp != "" {
		at := place{}
		for s.next() && !laterThan(lineTS(s.line), cur.Stamp) {
			at = place{at.count + 1, s.end}
		}
		return at, nil, nil, s.err
	}
	return countTo(s, cur, handle)
}

// recoverPlace stands in for a cursor that does not parse. The offset index gives
// the place back when the inbox still bears it out: a line that hashes as the
// index says ends at its offset, and exactly its count of lines end there. Else
// the inbox is read from its first line, as before there was an index. Either
// way the note says which; recovered is the index the cursor is rewritten from.
func recoverPlace(r io.ReaderAt, size int64, m mark) (at place, recovered *index, notes []string, err error) {
	unparsed := fmt.Sprintf("%s could not be parsed (%v)", m.cursorName, m.garbled)
	if !m.haveIx {
		return place{}, nil, []string{fmt.Sprintf("%s, and there is no usable %s to recover the position from, so the inbox is read from its first line", unparsed, m.indexName)}, nil
	}
	ok, err := m.ix.holds(r, size)
	if err == nil && ok {
		ok, err = m.ix.countsTo(r)
	}
	if err != nil {
		return place{}, nil, nil, err
	}
	if !ok {
		return place{}, nil, []string{fmt.Sprintf("%s, and %s does not agree with the inbox, so the inbox is read from its first line", unparsed, m.indexName)}, nil
	}
	return place{m.ix.count, m.ix.off}, &m.ix, []string{fmt.Sprintf("%s; recovered the position (%d lines) from %s, and the cursor is rewritten from it", unparsed, m.ix.count, m.indexName)}, nil
}

// countTo counts lines up to the cursor's and checks the last one's hash. A line
// that is gone or no longer hashes so was removed by a cut-back: reading steps back
// one line and says so.
func countTo(s *lineScanner, cur Cursor, handle string) (place, *index, []string, error) {
	var prev, at place
	var hash string
	for at.count < cur.Count && s.next() {
		prev, at = at, place{at.count + 1, s.end}
		if at.count == cur.Count {
			hash = LineHash(s.line)
		}
	}
	if s.err != nil {
		return place{}, nil, nil, s.err
	}
	switch {
	case at.count == cur.Count && (cur.Hash == "" || cur.Hash == hash):
		return at, &index{count: at.count, off: at.off, hash: hash}, nil, nil
	case cur.Hash != "" && at.count >= cur.Count-1:
		if at.count == cur.Count {
			at = prev
		}
		return at, nil, []string{fmt.Sprintf("line %d of the inbox for @%s, the last one read, is no longer the line that was read (a cut-back removed it), so reading steps back one line and resumes after line %d", cur.Count, handle, at.count)}, nil
	}
	return at, nil, []string{fmt.Sprintf("the read cursor for @%s counts %d lines but the inbox holds only %d, so reading resumes after line %d", handle, cur.Count, at.count, at.count)}, nil
}

// lineTS is a line's ts field, "" when the line has none or is not JSON.
func lineTS(line []byte) string {
	var v struct {
		TS string `json:"ts"`
	}
	if json.Unmarshal(line, &v) != nil {
		return ""
	}
	return v.TS
}

// emptyFile stands in for an inbox that does not exist yet.
type emptyFile struct{}

func (emptyFile) ReadAt(p []byte, _ int64) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return 0, io.EOF
}
