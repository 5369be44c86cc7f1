package screen

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func dimmed(s *Screen, row, first, last int) *Screen {
	for c := first; c <= last; c++ {
		s.Lines[row][c].Dim = true
	}
	return s
}

func mustWrite(t testing.TB, s *Screen) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, s); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return b.String()
}

func TestWriteFormat(t *testing.T) {
	s := dimmed(FromText([]string{"────", "❯\u00a0ab", "", "修 "}, 6, 4, 1, 2), 1, 2, 3)
	want := "────\n❯\u00a0ab\n\n修\ncols=6 rows=4 cursor=1,2\ndim=1:2-3\n"
	if got := mustWrite(t, s); got != want {
		t.Errorf("Write =\n%q\nwant\n%q", got, want)
	}
	// No dim cell, no dim line; the no-break space at the end of a row is kept.
	s = FromText([]string{"❯\u00a0"}, 4, 1, 0, 2)
	if got, want := mustWrite(t, s), "❯\u00a0\ncols=4 rows=1 cursor=0,2\n"; got != want {
		t.Errorf("Write = %q, want %q", got, want)
	}
}

func TestWriteParseRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		s    *Screen
	}{
		{"blank", FromText(nil, 80, 24, 0, 0)},
		{"claude box", FromText([]string{"✻ Worked for 3s", "", "────────", "❯\u00a0", "────────", "  ● main"}, 8, 6, 3, 2)},
		{"wide characters", FromText([]string{"修复测试 👍🏽", "e\u0301"}, 12, 2, 0, 11)},
		{"dim suggestion", dimmed(FromText([]string{"❯\u00a0Try \"fix it\""}, 20, 1, 0, 2), 0, 2, 15)},
		{"dim wide character with its continuation", dimmed(FromText([]string{"修"}, 2, 1, 0, 0), 0, 0, 1)},
		{"dim blank cells", dimmed(FromText([]string{"ab"}, 5, 1, 0, 0), 0, 2, 4)},
		{"row that looks like a trailer", FromText([]string{"dim=0:0", "cols=1 rows=1 cursor=0,0"}, 30, 2, 0, 0)},
		{"cursor off the screen", FromText([]string{"x"}, 3, 1, 40, 99)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := mustWrite(t, tc.s)
			got, err := Parse(strings.NewReader(text))
			if err != nil {
				t.Fatalf("Parse(Write(s)): %v\n%s", err, text)
			}
			if !reflect.DeepEqual(got, tc.s) {
				t.Errorf("Parse(Write(s)) differs from s\nwritten:\n%s\nread back:\n%s", text, mustWrite(t, got))
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantLines []string
		wantDim   [][2]int // row, col
		cursor    [2]int
	}{
		{"CRLF lines", "ab\r\ncols=3 rows=1 cursor=0,1\r\n", []string{"ab "}, nil, [2]int{0, 1}},
		{"byte-order mark", "\uFEFFab\ncols=2 rows=1 cursor=0,0\n", []string{"ab"}, nil, [2]int{0, 0}},
		{"no final newline", "ab\ncols=2 rows=1 cursor=0,0", []string{"ab"}, nil, [2]int{0, 0}},
		{"blank lines after the trailer", "ab\ncols=2 rows=1 cursor=0,0\n\n\n", []string{"ab"}, nil, [2]int{0, 0}},
		{"fewer rows than rows=", "a\ncols=1 rows=3 cursor=2,0\n", []string{"a", " ", " "}, nil, [2]int{2, 0}},
		{"fields in any order", "a\ncursor=0,0 rows=1 cols=1\n", []string{"a"}, nil, [2]int{0, 0}},
		{"one-cell dim run", "ab\ncols=2 rows=1 cursor=0,0\ndim=0:1\n", []string{"ab"}, [][2]int{{0, 1}}, [2]int{0, 0}},
		{"empty dim line", "ab\ncols=2 rows=1 cursor=0,0\ndim=\n", []string{"ab"}, nil, [2]int{0, 0}},
		{"trailing spaces past cols", "ab      \ncols=3 rows=1 cursor=0,0\n", []string{"ab "}, nil, [2]int{0, 0}},
		{"cursor past the edge", "ab\ncols=2 rows=1 cursor=5,9\n", []string{"ab"}, nil, [2]int{5, 9}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse(strings.NewReader(tc.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			var lines []string
			for r := range s.Rows {
				lines = append(lines, s.Line(r))
			}
			if !reflect.DeepEqual(lines, tc.wantLines) {
				t.Errorf("lines = %q, want %q", lines, tc.wantLines)
			}
			var dim [][2]int
			for r, cells := range s.Lines {
				for c, cell := range cells {
					if cell.Dim {
						dim = append(dim, [2]int{r, c})
					}
				}
			}
			if !reflect.DeepEqual(dim, tc.wantDim) {
				t.Errorf("dim cells = %v, want %v", dim, tc.wantDim)
			}
			if got := [2]int{s.CursorRow, s.CursorCol}; got != tc.cursor {
				t.Errorf("cursor = %v, want %v", got, tc.cursor)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty file", "", "no trailer: the last line must read cols=C rows=R cursor=ROW,COL"},
		{"no trailer", "❯\u00a0\n", "no trailer"},
		{"dim line alone", "dim=0:1\n", "line 1: the trailer \"dim=0:1\" must read cols=C rows=R cursor=ROW,COL: dim= is not a trailer field"},
		{"trailer not last", "cols=2 rows=1 cursor=0,0\nab\n", "no trailer"},
		{"missing cursor", "cols=2 rows=1\n", "line 1: the trailer \"cols=2 rows=1\" must read cols=C rows=R cursor=ROW,COL: cursor= is missing"},
		{"cursor without a comma", "cols=2 rows=1 cursor=3\n", "cursor=3 is not ROW,COL"},
		{"negative cursor", "cols=2 rows=1 cursor=-1,0\n", "cursor=: \"-1\" is not a number"},
		{"field given twice", "cols=2 cols=2 rows=1 cursor=0,0\n", "cols= is given twice"},
		{"unknown field", "cols=2 rows=1 cursor=0,0 cells=2\n", "cells= is not a trailer field"},
		{"not key=value", "cols=2 rows=1 cursor=0,0 x\n", "\"x\" is not key=value"},
		{"zero rows", "cols=2 rows=0 cursor=0,0\n", "at least one column and one row"},
		{"too large", "cols=4096 rows=4096 cursor=0,0\n", "larger than any terminal"},
		{"wider than its cols", "abc\ncols=2 rows=1 cursor=0,0\n", "line 1: the row is 3 columns wide, wider than the trailer's cols=2"},
		{"wide character over the edge", "a修\ncols=2 rows=1 cursor=0,0\n", "3 columns wide"},
		{"more rows than rows=", "a\nb\ncols=1 rows=1 cursor=0,0\n", "the file has 2 screen rows before its trailer, more than its rows=1"},
		{"tab", "a\tb\ncols=3 rows=1 cursor=0,0\n", "line 1: the row holds the control character U+0009 at byte 1"},
		{"escape sequence", "\x1b[2mab\ncols=6 rows=1 cursor=0,0\n", "U+001B"},
		{"C1 control", "a\u0085\ncols=3 rows=1 cursor=0,0\n", "U+0085"},
		{"invalid UTF-8", "a\xffb\ncols=3 rows=1 cursor=0,0\n", "line 1: the row is not valid UTF-8"},
		{"dim run off the screen", "ab\ncols=2 rows=1 cursor=0,0\ndim=0:1-2\n", "line 3: dim run \"0:1-2\" lies off the 2x1 screen"},
		{"dim row off the screen", "ab\ncols=2 rows=1 cursor=0,0\ndim=1:0\n", "lies off"},
		{"dim run backwards", "ab\ncols=2 rows=1 cursor=0,0\ndim=0:1-0\n", "lies off"},
		{"dim run malformed", "ab\ncols=2 rows=1 cursor=0,0\ndim=0-1\n", "must read ROW:FIRST-LAST or ROW:COL: no ':' after the row"},
		{"huge number", "cols=99999999999 rows=1 cursor=0,0\n", "is not a number from 0 to 999999999"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("Parse accepted %q as %+v", tc.in, s)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestParseRefusesAnOversizedFile(t *testing.T) {
	big := strings.Repeat("x", maxFileBytes+1)
	if _, err := Parse(strings.NewReader(big)); err == nil || !strings.Contains(err.Error(), "larger than 8 MiB") {
		t.Errorf("error = %v, want the size refusal", err)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestParseReportsReadErrors(t *testing.T) {
	if _, err := Parse(failingReader{}); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("error = %v, want the reader's error", err)
	}
}

func TestWriteMakesEveryScreenParse(t *testing.T) {
	tests := []struct {
		name string
		row  []Cell
		want string // the row as written
	}{
		{"control character", []Cell{{Text: "\n", Width: 1}, {Text: "a", Width: 1}}, "\uFFFDa"},
		{"escape sequence", []Cell{{Text: "\x1b[2m", Width: 1}}, "\uFFFD"},
		{"invalid UTF-8", []Cell{{Text: "\xff", Width: 1}}, "\uFFFD"},
		{"two graphemes in one cell", []Cell{{Text: "ab", Width: 1}}, "\uFFFD"},
		{"narrow text in a wide cell", []Cell{{Text: "a", Width: 2}, {}}, "\uFFFD"},
		{"orphan continuation cell", []Cell{{}, {Text: "a", Width: 1}}, " a"},
		{"wide character cut by the edge", []Cell{{Text: "a", Width: 1}, {Text: "修", Width: 2}}, "a"},
		{"empty text in a plain cell", []Cell{{Text: "", Width: 1}, {Text: "b", Width: 1}}, " b"},
		{"zero-width character riding a cell", []Cell{{Text: "a\u200b", Width: 1}}, "\uFFFD"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &Screen{Cols: 2, Rows: 1, Lines: [][]Cell{tc.row}}
			text := mustWrite(t, s)
			if got, _, _ := strings.Cut(text, "\n"); got != tc.want {
				t.Errorf("row written as %q, want %q", got, tc.want)
			}
			if _, err := Parse(strings.NewReader(text)); err != nil {
				t.Errorf("Parse(Write(s)): %v\n%q", err, text)
			}
		})
	}
}
