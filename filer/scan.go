package filer

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// lineScanner walks the newline-terminated lines of r; an unterminated last line
// is never yielded, because only newline-terminated lines count.
type lineScanner struct {
	r    *bufio.Reader
	end  int64  // offset just past the current line's newline
	line []byte // the current line without its newline; valid until the next call
	long []byte // a line longer than the buffer, gathered in pieces
	err  error  // a read error other than the end of the file
}

func newLineScanner(r io.Reader) *lineScanner {
	return &lineScanner{r: bufio.NewReaderSize(r, 64<<10)}
}

func (s *lineScanner) next() bool {
	s.long = s.long[:0]
	for {
		frag, err := s.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			s.long = append(s.long, frag...)
			continue
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.err = err
			}
			return false
		}
		if len(s.long) > 0 {
			s.long = append(s.long, frag...)
			frag = s.long
		}
		s.end += int64(len(frag))
		s.line = frag[:len(frag)-1]
		return true
	}
}

// backChunk is how much of an inbox eachBack reads at a time.
const backChunk = 64 << 10

// eachBack hands the newline-terminated lines of r's first size bytes to visit
// from the last to the first, each with the offset it starts at, until visit
// answers false: a reader of an inbox's last lines reads only those. An
// unterminated last line is never handed, as lineScanner never yields it. A
// line is valid only until visit returns.
func eachBack(r io.ReaderAt, size int64, visit func(start int64, line []byte) bool) error {
	buf := make([]byte, backChunk)
	var pending []byte // the start of the line being gathered was not read yet: its end
	end := int64(-1)   // where that line's newline is; -1 until the last newline is found
	for pos := size; pos > 0; {
		n := min(backChunk, pos)
		pos -= n
		b := buf[:n]
		if _, err := r.ReadAt(b, pos); err != nil {
			return err
		}
		for {
			i := bytes.LastIndexByte(b, '\n')
			if i < 0 {
				if end >= 0 {
					pending = append(bytes.Clone(b), pending...)
				}
				break
			}
			if end >= 0 {
				line := b[i+1:]
				if len(pending) > 0 {
					line = append(bytes.Clone(line), pending...)
				}
				if !visit(pos+int64(i)+1, line) {
					return nil
				}
			}
			pending, end, b = pending[:0], pos+int64(i), b[:i]
		}
	}
	if end >= 0 {
		visit(0, pending)
	}
	return nil
}
