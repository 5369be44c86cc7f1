package filer

import (
	"bytes"
	"io"
	"os"
)

// lastLen is how many bytes before its end an idWindow keeps to recognise its
// inbox again: enough to hold the ts and id that end a filed line.
const lastLen = 128

// smallAdvance is the most new bytes an advance reads into a buffer of their own
// size rather than a pooled DedupeTail one.
const smallAdvance = 64 << 10

// idWindow holds the message ids of one inbox's dedupe window, the complete lines
// that start inside its last DedupeTail bytes, as this Filer last saw them. The
// next append reads only the bytes added since, so a long-lived Filer (the
// daemon's) no longer reads a whole window for every batch.
type idWindow struct {
	file  os.FileInfo      // the inbox it was read from; nil before the first look
	end   int64            // the inbox's length then; every line before it is whole
	last  []byte           // the inbox's bytes just before end
	ids   map[string]int64 // id → start of the last line that holds it
	order []idLine         // the same lines in file order, to drop those that leave
	// partial: ids holds only the ids that the first look asked about, so the
	// next look reads the whole window again.
	partial bool
	used    uint64 // when its Filer last used it; the least recent is evicted
}

type idLine struct {
	id   string
	line int64
}

// advance brings w to the inbox r, now end bytes long and every line whole, so
// that it holds at least the wanted ids that the window holds. It reads the bytes
// after w.end, or the whole window when r is not the file w was read from or no
// longer begins with it.
//
// Another process may append between two looks, and a cut-back or an undo can
// shorten the inbox below w.end. Such an inbox is read again whole, as is one that
// was replaced (another file) or rewritten in place: the bytes before w.end must
// still end in w.last. A rewrite that keeps both its identity and those bytes at
// that offset is not recognised; nothing in sotd rewrites an inbox.
func (w *idWindow) advance(r io.ReaderAt, file os.FileInfo, end int64, wanted map[string]bool) error {
	switch {
	case w.file == nil:
		// A Filer's first look at an inbox, for a process that files once its only
		// one: keeping just the wanted ids costs no more than reading the window.
		return w.read(r, file, end, wanted)
	case w.partial || !os.SameFile(w.file, file) || end < w.end || end-w.end+int64(len(w.last)) > DedupeTail:
		return w.read(r, file, end, nil)
	}
	from := w.end - int64(len(w.last))
	var b []byte
	if n := end - from; n <= smallAdvance {
		// The usual step, a daemon's batch after its own last one: the bytes
		// since are few, and a whole pooled window (1 MiB, dropped at each GC)
		// would cost more to zero than they cost to read.
		b = make([]byte, n)
	} else {
		buf := tailPool.Get().(*[DedupeTail]byte)
		defer tailPool.Put(buf)
		b = buf[:n]
	}
	if _, err := r.ReadAt(b, from); err != nil || !bytes.Equal(b[:len(w.last)], w.last) {
		return w.read(r, file, end, nil)
	}
	w.add(b[len(w.last):], w.end, nil)
	w.setLast(b)
	w.end = end
	w.drop()
	return nil
}

// read fills w from the last DedupeTail bytes of r, end bytes long: every id, or
// only the wanted ones when wanted is not nil.
func (w *idWindow) read(r io.ReaderAt, file os.FileInfo, end int64, wanted map[string]bool) error {
	*w = idWindow{file: file, ids: map[string]int64{}, partial: wanted != nil}
	buf := tailPool.Get().(*[DedupeTail]byte)
	defer tailPool.Put(buf)
	start := max(0, end-DedupeTail)
	tail := buf[:end-start]
	if _, err := r.ReadAt(tail, start); err != nil {
		return err
	}
	w.setLast(tail)
	w.end = end
	if start > 0 {
		// The window began mid-line; only the lines that start after it count.
		i := bytes.IndexByte(tail, '\n')
		start += int64(i + 1)
		tail = tail[i+1:]
	}
	w.add(tail, start, wanted)
	return nil
}

// appended adds the lines this Filer just wrote at w.end.
func (w *idWindow) appended(b []byte) {
	w.add(b, w.end, nil)
	w.end += int64(len(b))
	if len(b) < lastLen {
		b = append(w.last, b...)
	}
	w.setLast(b)
}

// holds reports whether a line of the window holds id.
func (w *idWindow) holds(id string) bool {
	_, ok := w.ids[id]
	return ok
}

// add records the ids in b, whole lines that start at the file offset base: every
// id, or only the wanted ones when wanted is not nil.
func (w *idWindow) add(b []byte, base int64, wanted map[string]bool) {
	eachID(b, base, wanted, func(id string, line int64) {
		w.ids[id] = line
		w.order = append(w.order, idLine{id, line})
	})
}

// drop forgets the lines that no longer start inside the window. A line that
// starts exactly DedupeTail bytes before the end is out, as read has it: a read
// of the window alone cannot tell such a line from one that began before it.
func (w *idWindow) drop() {
	lo := w.end - DedupeTail
	if lo <= 0 {
		return
	}
	n := 0
	for ; n < len(w.order) && w.order[n].line <= lo; n++ {
		if l := w.order[n]; w.ids[l.id] == l.line {
			delete(w.ids, l.id)
		}
	}
	w.order = w.order[n:]
}

// setLast keeps the last lastLen bytes of b, which ends at the inbox's new end.
func (w *idWindow) setLast(b []byte) {
	b = b[max(0, len(b)-lastLen):]
	w.last = append(w.last[:0:0], b...)
}
