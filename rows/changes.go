package rows

import (
	"slices"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"

	"github.com/sotcomm/sotd/screen"
)

// changes is when each row of a PTY row's screen, and its cursor, last changed
// as a Screen shows them (a cell's text, width or dimness; the cursor's place),
// noted after every chunk the emulator takes. The wake's stillness reads it
// (screen.Screen's Changed): a look sees only the screen of its moment, so two
// looks StillFor apart miss a change undone between them (Claude Code's
// mascot, which animates for a second or two after the row starts and comes
// back to where it was), and a region first looked at when mail comes cannot
// show how long it had been still. What a Screen does not show is no change: a
// row redrawn as it was, a colour, a title, the cursor sent away and back
// within one chunk.
type changes struct {
	cells  [][]screen.Cell // the screen as last noted
	at     []time.Time     // by row: when it last changed
	cursor uv.Position
	moved  time.Time
}

// newChanges notes e's screen as drawn at now, every row changed then.
func newChanges(e *vt.Emulator, now time.Time) *changes {
	c := &changes{cursor: e.CursorPosition(), moved: now}
	c.cells = make([][]screen.Cell, e.Height())
	c.at = make([]time.Time, e.Height())
	for y := range c.cells {
		c.cells[y] = make([]screen.Cell, e.Width())
		c.noteRow(e, y)
		c.at[y] = now
	}
	return c
}

// note compares e's screen with the last one noted and stamps what changed
// with now. It allocates nothing: it runs after every chunk the agent draws.
func (c *changes) note(e *vt.Emulator, now time.Time) {
	for y := range c.cells {
		if c.noteRow(e, y) {
			c.at[y] = now
		}
	}
	if pos := e.CursorPosition(); pos != c.cursor {
		c.cursor, c.moved = pos, now
	}
}

// noteRow copies row y of e into the notes and says whether it differed.
func (c *changes) noteRow(e *vt.Emulator, y int) bool {
	changed := false
	row := c.cells[y]
	for x := range row {
		if cell := cellOf(e.CellAt(x, y)); cell != row[x] {
			row[x], changed = cell, true
		}
	}
	return changed
}

// stamp gives s the change times, copied: s outlives the row's lock.
func (c *changes) stamp(s *screen.Screen) {
	s.Changed, s.CursorMoved = slices.Clone(c.at), c.moved
}
