// Package screen is what a row shows: rows of cells with the attributes the wake
// needs, and where the cursor is. Backends (tmux, the built-in PTY) produce it;
// the free-prompt test reads it; `sotd rows screen` saves it as text (Write) and
// `sotd wake check` reads that text back (Parse).
//
// Cell widths are measured as charmbracelet/x/vt measures them (grapheme
// clusters, ansi.GraphemeWidth), so a screen read from text and one read from
// the built-in terminal put every character in the same column.
package screen

import (
	"strings"
	"time"
)

// Cell is one column of the screen. A wide character fills its first cell with
// Width 2 and the next with an empty Text and Width 0.
type Cell struct {
	Text  string // the grapheme drawn here; " " for a blank cell
	Width int
	Dim   bool // drawn faint (SGR 2): a gray suggestion, not typed text
}

// Screen is a snapshot of a terminal.
type Screen struct {
	Cols, Rows int
	Lines      [][]Cell // len(Lines) == Rows; each line has Cols cells
	CursorRow  int      // 0-based
	CursorCol  int      // 0-based
	// Changed is when each row last changed (its cells' text, width or
	// dimness) and CursorMoved when the cursor last moved, on the wall clock:
	// as the PTY backend's emulator saw every byte, or, for a tmux row, by the
	// output its control client saw between captures (never earlier than the
	// change; a change undone between two captures is not seen). A backend
	// that cannot tell and a screen read from text leave Changed nil and
	// CursorMoved zero.
	Changed     []time.Time
	CursorMoved time.Time
}

// Line is row r as text, dim cells included, trailing blanks kept.
func (s *Screen) Line(r int) string {
	if r < 0 || r >= len(s.Lines) {
		return ""
	}
	var b strings.Builder
	for _, c := range s.Lines[r] {
		b.WriteString(c.Text)
	}
	return b.String()
}

// FromText builds a screen of plain (not dim) cells from text lines, one cell
// per column a grapheme fills (see cellsOf), each line cut or padded to cols; it
// is how a saved screen file is read back. A wide character that would straddle
// the last column is dropped, as a terminal would not draw half of it.
func FromText(lines []string, cols, rows, cursorRow, cursorCol int) *Screen {
	cols, rows = max(cols, 0), max(rows, 0)
	s := &Screen{Cols: cols, Rows: rows, CursorRow: cursorRow, CursorCol: cursorCol}
	s.Lines = make([][]Cell, rows)
	for r := range rows {
		var cells []Cell
		if r < len(lines) {
			cells = cellsOf(lines[r])
		}
		s.Lines[r] = fit(cells, cols)
	}
	return s
}

// fit cuts cells to cols columns, blanking a wide character cut in half, and
// pads with blank cells.
func fit(cells []Cell, cols int) []Cell {
	if len(cells) > cols {
		cells = cells[:cols]
		if cols > 0 && cells[cols-1].Width > 1 {
			cells[cols-1] = blank
		}
	}
	out := make([]Cell, cols)
	n := copy(out, cells)
	for i := n; i < cols; i++ {
		out[i] = blank
	}
	return out
}

var blank = Cell{Text: " ", Width: 1}
