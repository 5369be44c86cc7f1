package wake

import (
	"fmt"

	"github.com/sotcomm/sotd/screen"
)

const (
	panelDot    = "●" // the agent the input box reaches
	panelRing   = "◯" // every other agent
	panelCursor = "❯" // a focused panel's selected line
	mainLine    = "  ● main"
	// markCol is the column of a panel line's mark: after two spaces, or after
	// the focused panel's cursor and a space.
	markCol = 2
)

// panelReason says why the agents panel below the input box shows the box not
// reaching the main agent, "" when it does or when there is no panel. Rows from
// first down are read as they show, dim cells included.
func panelReason(s *screen.Screen, first int) string {
	listed, dotted := 0, []string(nil)
	for r := max(first, 0); r < len(s.Lines); r++ {
		cells := s.Lines[r]
		mark, focused := panelLine(cells)
		if mark == "" {
			continue
		}
		line := text(cells)
		if focused {
			return fmt.Sprintf("the agents panel below the input box has focus (row %d reads %s): Enter there would open an agent's view, not send a line", r, quote(line))
		}
		listed++
		if mark == panelDot {
			dotted = append(dotted, line)
		}
	}
	switch {
	case listed == 0 || len(dotted) == 1 && dotted[0] == mainLine:
		return ""
	case len(dotted) == 1:
		return fmt.Sprintf("the agents panel marks %s with ●, not main: the input box reaches that agent, not the main session", quote(dotted[0]))
	case len(dotted) > 1:
		return fmt.Sprintf("the agents panel marks %d agents with ●; only main may be marked", len(dotted))
	default:
		return "the agents panel marks no agent with ●, so the input box may not reach the main session"
	}
}

// panelLine reads a row as a line of the agents panel: its mark (● or ◯), and
// whether the panel's cursor ❯ stands before it; mark is "" for any other row.
// The panel draws an agent as "  ● name", or "❯ ● name" under its cursor: the
// mark is the first cell shown after the cursor, in the third column. Claude
// Code's footer draws its effort level with the same ● ("● high · /effort",
// right-aligned, the only thing on the row while the box holds text), and that
// is not a panel line.
func panelLine(cells []screen.Cell) (mark string, focused bool) {
	if len(cells) <= markCol || !blank(cells[1]) {
		return "", false
	}
	if m := cells[markCol].Text; m != panelDot && m != panelRing {
		return "", false
	}
	switch {
	case blank(cells[0]):
		return cells[markCol].Text, false
	case cells[0].Text == panelCursor:
		return cells[markCol].Text, true
	}
	return "", false
}
