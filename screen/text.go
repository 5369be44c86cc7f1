package screen

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The text format, as `sotd rows screen` saves a screen and `sotd wake check`
// reads it:
//
//	<row 0 as the screen shows it>
//	…
//	<row R-1>
//	cols=C rows=R cursor=ROW,COL
//	dim=ROW:FIRST-LAST,…
//
// Each row is its cells' text with trailing spaces cut (a no-break space is
// kept: it is what tells Claude Code's prompt from a menu). Rows missing at the
// end read as blank. The trailer gives the size and the cursor, 0-based. The
// dim line is optional and Write adds it only when some cell is drawn faint: it
// names the dim cells as inclusive column ranges (`16:2-30`, or `16:5` for one
// cell), so a gray suggestion saved from a live row still reads as a suggestion
// and not a draft. Without it every cell reads as plain text.

const (
	maxFileBytes = 8 << 20
	maxSide      = 4096    // columns or rows
	maxCells     = 1 << 20 // columns × rows
)

const trailerForm = "cols=C rows=R cursor=ROW,COL"

// Write saves s in the text format. Every file Write makes parses: a cell whose
// text would not read back into one cell of its width (a control character,
// invalid UTF-8, text wider or narrower than the cell) is written as U+FFFD.
func Write(w io.Writer, s *Screen) error {
	var b strings.Builder
	for r := range max(s.Rows, 0) {
		var cells []Cell
		if r < len(s.Lines) {
			cells = s.Lines[r]
		}
		b.WriteString(strings.TrimRight(rowText(cells, s.Cols), " "))
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "cols=%d rows=%d cursor=%d,%d\n", s.Cols, s.Rows, s.CursorRow, s.CursorCol)
	if d := DimRanges(s); d != "" {
		b.WriteString("dim=" + d + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// rowText is a row's cells as the text that Parse reads back into them.
func rowText(cells []Cell, cols int) string {
	var b strings.Builder
	for c := 0; c < len(cells) && c < cols; {
		w := cells[c].Width
		switch {
		case w <= 0: // a continuation cell with no wide character before it
			w = 1
			b.WriteByte(' ')
		case c+w > cols: // a wide character cut by the edge
			w = cols - c
			b.WriteString(strings.Repeat(" ", w))
		default:
			b.WriteString(cellText(cells[c].Text, w))
		}
		c += w
	}
	return b.String()
}

func cellText(t string, w int) string {
	if t == "" || t == " " {
		return strings.Repeat(" ", w)
	}
	if utf8.ValidString(t) {
		if cells := cellsOf(t); len(cells) == w && cells[0].Text == t {
			return t
		}
	}
	return "\uFFFD" + strings.Repeat(" ", w-1)
}

// Parse reads a screen in the text format. The file may end in CRLF lines and
// start with a byte-order mark. It is refused, with the line and what is wrong,
// when the trailer is missing or malformed, a row is wider than cols or holds a
// control character or invalid UTF-8, there are more rows than rows=, a dim
// range lies off the screen, or the screen exceeds 4096 columns or rows or 2^20
// cells (or the file 8 MiB).
func Parse(r io.Reader) (*Screen, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read the screen: %w", err)
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("the file is larger than %d MiB, more than any screen", maxFileBytes>>20)
	}
	text := strings.TrimPrefix(string(data), "\uFEFF")
	lines := strings.Split(strings.TrimRight(text, "\r\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	last, dim := len(lines)-1, ""
	if last > 0 && strings.HasPrefix(lines[last], "dim=") {
		dim = strings.TrimPrefix(lines[last], "dim=")
		last--
	}
	if !strings.Contains(lines[last], "=") {
		return nil, fmt.Errorf("no trailer: the last line must read %s (0-based), after the screen's rows", trailerForm)
	}
	cols, rows, crow, ccol, err := parseTrailer(lines[last])
	if err != nil {
		return nil, fmt.Errorf("line %d: the trailer %q must read %s: %w", last+1, lines[last], trailerForm, err)
	}
	body := lines[:last]
	if len(body) > rows {
		return nil, fmt.Errorf("the file has %d screen rows before its trailer, more than its rows=%d", len(body), rows)
	}
	s := &Screen{Cols: cols, Rows: rows, CursorRow: crow, CursorCol: ccol, Lines: make([][]Cell, rows)}
	for r := range rows {
		var cells []Cell
		if r < len(body) {
			if cells, err = rowCells(body[r], cols); err != nil {
				return nil, fmt.Errorf("line %d: %w", r+1, err)
			}
		}
		s.Lines[r] = fit(cells, cols)
	}
	if err := applyDim(s, dim); err != nil {
		return nil, fmt.Errorf("line %d: %w", last+2, err)
	}
	return s, nil
}

func rowCells(line string, cols int) ([]Cell, error) {
	if !utf8.ValidString(line) {
		return nil, errors.New("the row is not valid UTF-8; save screens as UTF-8 text")
	}
	for i, r := range line {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return nil, fmt.Errorf("the row holds the control character %U at byte %d; a row holds only what its cells show (a tab must be spaces)", r, i)
		}
	}
	cells := cellsOf(strings.TrimRight(line, " ")) // trailing blanks are padding, however many
	if len(cells) > cols {
		return nil, fmt.Errorf("the row is %d columns wide, wider than the trailer's cols=%d", len(cells), cols)
	}
	return cells, nil
}

func parseTrailer(line string) (cols, rows, crow, ccol int, err error) {
	seen := map[string]bool{}
	for _, f := range strings.Fields(line) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return 0, 0, 0, 0, fmt.Errorf("%q is not key=value", f)
		}
		if seen[k] {
			return 0, 0, 0, 0, fmt.Errorf("%s= is given twice", k)
		}
		seen[k] = true
		switch k {
		case "cols":
			cols, err = number(v)
		case "rows":
			rows, err = number(v)
		case "cursor":
			r, c, ok := strings.Cut(v, ",")
			if !ok {
				return 0, 0, 0, 0, fmt.Errorf("cursor=%s is not ROW,COL", v)
			}
			if crow, err = number(r); err == nil {
				ccol, err = number(c)
			}
		default:
			return 0, 0, 0, 0, fmt.Errorf("%s= is not a trailer field", k)
		}
		if err != nil {
			return 0, 0, 0, 0, fmt.Errorf("%s=: %w", k, err)
		}
	}
	for _, k := range []string{"cols", "rows", "cursor"} {
		if !seen[k] {
			return 0, 0, 0, 0, fmt.Errorf("%s= is missing", k)
		}
	}
	switch {
	case cols < 1 || rows < 1:
		return 0, 0, 0, 0, errors.New("a screen has at least one column and one row")
	case cols > maxSide || rows > maxSide || cols*rows > maxCells:
		return 0, 0, 0, 0, fmt.Errorf("a %dx%d screen is larger than any terminal (at most %d columns or rows, %d cells)", cols, rows, maxSide, maxCells)
	}
	return cols, rows, crow, ccol, nil
}

// number reads a count: decimal digits only, small enough that sizes multiply
// without overflow.
func number(v string) (int, error) {
	if v == "" || len(v) > 9 || strings.Trim(v, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a number from 0 to 999999999", v)
	}
	return strconv.Atoi(v)
}
