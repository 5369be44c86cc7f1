package rows

import (
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"

	"github.com/sotcomm/sotd/screen"
)

// snapshot copies the emulator's visible cells into a Screen. Both backends read
// cells this way: the PTY from its live emulator, tmux from a captured pane
// replayed into one, so a cell means the same thing whichever backend drew it.
func snapshot(e *vt.Emulator, cursorRow, cursorCol int) *screen.Screen {
	cols, rows := e.Width(), e.Height()
	s := &screen.Screen{Cols: cols, Rows: rows, CursorRow: cursorRow, CursorCol: cursorCol, Lines: make([][]screen.Cell, rows)}
	for y := 0; y < rows; y++ {
		line := make([]screen.Cell, cols)
		for x := 0; x < cols; x++ {
			line[x] = cellOf(e.CellAt(x, y))
		}
		s.Lines[y] = line
	}
	return s
}

func cellOf(c *uv.Cell) screen.Cell {
	switch {
	case c == nil:
		return screen.Cell{Text: " ", Width: 1}
	case c.Width == 0 && c.Content == "":
		// The second column of a wide character.
		return screen.Cell{Text: "", Width: 0}
	}
	out := screen.Cell{Text: c.Content, Width: c.Width, Dim: c.Style.Attrs&uv.AttrFaint != 0}
	if out.Text == "" {
		out.Text = " "
	}
	if out.Width <= 0 {
		out.Width = 1
	}
	return out
}
