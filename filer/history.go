package filer

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sotcomm/sotd/home"
)

// A history read (sotd log, a reply's short id) reads a whole inbox, read lines
// included, and keeps none of it: an inbox may hold a million lines. It reads
// without the lock, as Receipts does: only newline-terminated lines count, so a
// line being appended is simply not seen yet, and nothing is written.

// History is an open read of one inbox's lines, oldest first: Next moves to the
// next line, which Line holds (valid until the next call) with Read, whether the
// inbox's reader has been shown it (its cursor is past the line).
type History struct {
	Handle string
	Line   []byte
	Read   bool
	src    span
	sc     *lineScanner
	shown  int64 // the cursor's place as a byte offset: a line ending at or before it was shown
	at     int64 // where the scanner started
}

// OpenHistory opens handle's inbox for a history read. A since that is not zero
// skips the lines before the first one filed at or after it, found by halving
// the inbox on each line's ts: writers file in time order, but each stamps by its
// own clock, so a caller that must not miss a line filed by a box whose clock is
// behind asks for a since that much earlier and drops the earlier lines itself.
// An inbox that does not exist has no lines.
func (f *Filer) OpenHistory(handle string, since time.Time) (*History, error) {
	src, b, err := f.openShown(handle)
	if err != nil {
		return nil, err
	}
	h := &History{Handle: handle, src: src, shown: b.end}
	if !since.IsZero() {
		if h.at, err = seekTime(src.r, src.size, since); err != nil {
			src.close()
			return nil, fmt.Errorf("the inbox for @%s could not be read (%v)", handle, bareErr(err))
		}
	}
	h.sc = newLineScanner(io.NewSectionReader(src.r, h.at, src.size-h.at))
	return h, nil
}

// openShown opens handle's inbox for a reader that takes no lock and writes
// nothing (Receipts, History), with b.end the place its reader's cursor has
// been shown to.
func (f *Filer) openShown(handle string) (src span, b Batch, err error) {
	p, err := f.paths(handle)
	if err != nil {
		return span{}, Batch{}, err
	}
	m, err := f.mark(p)
	if err != nil {
		return span{}, Batch{}, err
	}
	src, b, _, _, err = placeInbox(f.Home, p.inbox, handle, m, nil)
	return src, b, err
}

// Next moves to the next complete line; false at the end or on an error (Err).
func (h *History) Next() bool {
	if !h.sc.next() {
		return false
	}
	h.Line = h.sc.line
	h.Read = h.at+h.sc.end <= h.shown
	return true
}

// Err is the read error that ended Next, if one did.
func (h *History) Err() error {
	if h.sc.err != nil {
		return fmt.Errorf("the inbox for @%s could not be read (%v)", h.Handle, bareErr(h.sc.err))
	}
	return nil
}

// Close closes the inbox.
func (h *History) Close() { h.src.close() }

// seekChunk is the span under which seekTime stops halving: reading it line by
// line costs less than more probes, each of which reads a whole line.
const seekChunk = 64 << 10

// seekTime is an offset at or before the first line of r's first size bytes
// whose ts is at or after since, taking the lines to be in ts order: a line
// with no ts that parses counts as earlier. The lines from it on still need
// their ts checked.
func seekTime(r io.ReaderAt, size int64, since time.Time) (int64, error) {
	// lo starts a line, and every line before it is earlier than since; the
	// first line at or after since starts in [lo, hi], or is not before hi.
	lo, hi := int64(0), size
	for hi-lo > seekChunk {
		mid := lo + (hi-lo)/2
		start, line, ok, err := lineFrom(r, mid, size)
		if err != nil {
			return 0, err
		}
		switch {
		case !ok || start >= hi:
			// No line starts in [mid, hi): one spans mid, or the last is
			// unterminated. The first at or after since, if there is one
			// before hi, starts before mid.
			hi = mid
		case lineTime(line).Before(since):
			lo = start + int64(len(line)) + 1
		default:
			hi = start
		}
	}
	return lo, nil
}

// lineFrom is the first complete line of r that starts at or after off, and
// where it starts; ok is false when there is none before size.
func lineFrom(r io.ReaderAt, off, size int64) (start int64, line []byte, ok bool, err error) {
	sc := newLineScanner(io.NewSectionReader(r, off-1, size-off+1))
	// Start one byte back: a newline there means off starts a line, and the
	// scanner's first line is that newline alone; else it is the rest of the
	// line off is inside. Either way the next one is the line wanted.
	if !sc.next() || !sc.next() {
		return 0, nil, false, sc.err
	}
	return off - 1 + sc.end - int64(len(sc.line)) - 1, sc.line, true, nil
}

// lineTime is a line's ts as a time, zero when it has none that parses.
func lineTime(line []byte) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, lineTS(line))
	return t
}

// FindIDs reads handle's inbox for the message ids match accepts, and answers
// the distinct ones it found, oldest first, stopping at max: a caller that wants
// one id asks for two, and learns that a name is ambiguous without reading on.
// The ids are the lines' own, as the filer's dedupe finds them (eachID).
func (f *Filer) FindIDs(handle string, match func(id string) bool, max int) ([]string, error) {
	h, err := f.OpenHistory(handle, time.Time{})
	if err != nil {
		return nil, err
	}
	defer h.Close()
	var found []string
	for len(found) < max && h.Next() {
		eachID(h.Line, 0, nil, func(id string, _ int64) {
			if len(found) < max && match(id) && !slices.Contains(found, id) {
				found = append(found, id)
			}
		})
	}
	return found, h.Err()
}

// Inboxes are the handles whose inboxes this home's inbox folder holds, sorted:
// every file named <handle>.jsonl for a name home.CheckHandle passes.
func (f *Filer) Inboxes() ([]string, error) {
	entries, err := os.ReadDir(f.Home.InboxDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the inbox folder could not be listed (%v)", bareErr(err))
	}
	var out []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if ok && home.CheckHandle(name) == nil {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Has reports whether this home holds an inbox for handle.
func (f *Filer) Has(handle string) bool {
	p, err := f.paths(handle)
	if err != nil {
		return false
	}
	_, err = os.Lstat(p.inbox)
	return err == nil
}
