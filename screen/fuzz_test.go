package screen

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
)

// FuzzParse: Parse never panics, a screen it accepts has the shape its
// trailer names, and writing it out and reading it back changes nothing.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"",
		"cols=1 rows=1 cursor=0,0\n",
		"────\n❯\u00a0ab\n────\ncols=4 rows=3 cursor=1,2\ndim=1:2-3\n",
		"修复 👍🏽 e\u0301\ncols=10 rows=1 cursor=0,0\n",
		"a\r\ncursor=0,0 rows=2 cols=3\r\ndim=1:0,0:1-2\r\n",
		"\uFEFFx\ncols=1 rows=1 cursor=9,9\n",
		"cols=4096 rows=256 cursor=0,0\n",
		"a\tb\ncols=3 rows=1 cursor=0,0\n",
		"dim=0:0\ncols=1 rows=1 cursor=0,0\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(bytes.NewReader(data))
		if err != nil {
			return
		}
		if len(s.Lines) != s.Rows {
			t.Fatalf("%d lines for rows=%d", len(s.Lines), s.Rows)
		}
		for r, l := range s.Lines {
			if len(l) != s.Cols {
				t.Fatalf("row %d has %d cells for cols=%d", r, len(l), s.Cols)
			}
		}
		text := mustWrite(t, s)
		again, err := Parse(strings.NewReader(text))
		if err != nil {
			t.Fatalf("Parse(Write(Parse(data))): %v\n%q", err, text)
		}
		if !reflect.DeepEqual(again, s) {
			t.Fatalf("a screen changed on its way through Write and Parse\n%q\n%q", text, mustWrite(t, again))
		}
	})
}

// FuzzWrite: whatever cells a backend hands over, Write makes a file that
// Parse reads, with the size and cursor kept.
func FuzzWrite(f *testing.F) {
	f.Add("❯\u00a0修\x00\xff\u200bab👍🏽", uint8(7), uint8(3), []byte{1, 2, 0, 1, 3})
	f.Add("", uint8(1), uint8(1), []byte{})
	f.Fuzz(func(t *testing.T, text string, cols, rows uint8, shape []byte) {
		s := &Screen{Cols: int(cols%40) + 1, Rows: int(rows%8) + 1, CursorRow: int(rows), CursorCol: int(cols)}
		for r := range s.Rows {
			var line []Cell
			for c := range s.Cols {
				k := byte(0)
				if i := r*s.Cols + c; i < len(shape) {
					k = shape[i]
				}
				cell := Cell{Width: int(k % 4), Dim: k&4 != 0}
				if text != "" {
					_, n := utf8.DecodeRuneInString(text)
					cell.Text, text = text[:n], text[n:]
				}
				line = append(line, cell)
			}
			s.Lines = append(s.Lines, line)
		}
		written := mustWrite(t, s)
		got, err := Parse(strings.NewReader(written))
		if err != nil {
			t.Fatalf("Parse(Write(s)): %v\n%q", err, written)
		}
		if got.Cols != s.Cols || got.Rows != s.Rows || got.CursorRow != s.CursorRow || got.CursorCol != s.CursorCol {
			t.Fatalf("size or cursor changed: %+v", got)
		}
	})
}
