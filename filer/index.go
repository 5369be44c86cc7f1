package filer

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sotcomm/sotd/home"
)

// index is read/<handle>.offset, ours beside the protocol's cursor:
// `<count> <offset> <crc>-<len>`, where offset is the byte just past line count.
// A reader whose cursor agrees with it seeks there instead of counting every line.
type index struct {
	count int
	off   int64
	hash  string
}

func (ix index) String() string {
	return strconv.Itoa(ix.count) + " " + strconv.FormatInt(ix.off, 10) + " " + ix.hash
}

// readIndex reads path; ok is false when it is missing or not an index, either of
// which only means the next read counts lines from the start. A symlink or other
// file that is not regular is refused: it is never read, nor replaced unasked.
func readIndex(h home.Home, path string) (ix index, ok bool, err error) {
	b, err := h.ReadFile(path, maxCursor)
	if errors.Is(err, home.ErrNotRegular) {
		return index{}, false, fmt.Errorf("%w; nothing was read", err)
	}
	if err != nil {
		return index{}, false, nil
	}
	f := strings.Fields(string(b))
	if len(f) != 3 {
		return index{}, false, nil
	}
	n, nok := count(f[0])
	off, err := strconv.ParseInt(f[1], 10, 64)
	hash, hok := parseHash(f[2])
	if !nok || err != nil || off < 0 || !hok {
		return index{}, false, nil
	}
	return index{count: n, off: off, hash: hash}, true, nil
}

// agrees reports whether the index speaks of the cursor's line: the same count,
// and the same hash when the cursor carries one.
func (ix index) agrees(c Cursor) bool {
	return c.Stamp == "" && ix.count == c.Count && (c.Hash == "" || c.Hash == ix.hash)
}

// holds checks the index against the inbox itself: a newline at off-1 ending a
// line that hashes to the index's hash. A cut-back, a rewritten or a replaced
// inbox fails it, and the reader counts lines again.
func (ix index) holds(r io.ReaderAt, size int64) (bool, error) {
	if ix.off > size || ix.count == 0 || ix.off == 0 {
		return false, nil
	}
	var nl [1]byte
	if _, err := r.ReadAt(nl[:], ix.off-1); err != nil {
		return false, err
	}
	if nl[0] != '\n' {
		return false, nil
	}
	start, err := lineStart(r, ix.off-1)
	if err != nil {
		return false, err
	}
	line := make([]byte, ix.off-1-start)
	if _, err := r.ReadAt(line, start); err != nil {
		return false, err
	}
	return LineHash(line) == ix.hash, nil
}

// countsTo reports whether exactly ix.count whole lines end at ix.off: holds
// checks the line there, this that no line was added or removed before it.
func (ix index) countsTo(r io.ReaderAt) (bool, error) {
	s := newLineScanner(io.NewSectionReader(r, 0, ix.off))
	n := 0
	for s.next() {
		n++
	}
	return n == ix.count && s.end == ix.off, s.err
}

func writeIndex(path string, ix index) error {
	if err := home.WriteAtomic(path, []byte(ix.String()+"\n")); err != nil {
		return fmt.Errorf("the read offset index could not be written (%w); the next read counts the inbox's lines again", err)
	}
	return nil
}
