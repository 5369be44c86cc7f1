package filer

import (
	"bufio"
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
