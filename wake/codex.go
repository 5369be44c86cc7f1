package wake

import (
	"fmt"
	"strings"

	"github.com/sotcomm/sotd/screen"
)

// Codex's composer, as the real Codex 0.171 draws it in a row (the screens in
// testdata/check/codex-*.txtar): a row that starts, in the first column, with
// the glyph › (U+203A) and a plain space, then the typed text or, while the
// composer is empty, a dim placeholder ("Ask Codex to do anything"); a blank
// row above it and below it, then the footer. It has no rules and no ❯. A
// Codex screen is free when all of these hold:
//
//   - The cursor's row is the composer: › in column 0, not dim (a prompt
//     shown in the history draws a dim ›), then a plain space.
//   - The rest of the row reads as spaces, dim cells read as spaces (the
//     placeholder), and the cursor sits right after the space, where Codex
//     puts it in an empty composer.
//   - The rows directly above and below are blank: a draft of several lines
//     shows its next line below the first, even when that first line is empty.
//   - No row above the composer shows Codex's status line ("• Working (3s •
//     esc to interrupt)"): a composer drawn under a running turn looks empty
//     too, and a line typed there would be queued into the turn.
//   - The screen is wide enough for the glyph, its space, the notice, the
//     cursor after it and one spare column: measured with Codex 0.171, the
//     notice plus the cursor wraps to a second row at one column fewer.
//
// A composer that holds exactly the notice holds the notice, as in Claude
// Code's box. Codex's menus, dialogs and pickers (the approval dialog, the
// trust prompt, /model, the agents view) put the cursor elsewhere, or draw
// "› 1. Yes" with text after the glyph; its slash popup opens over a composer
// that holds "/". Codex's "?" shortcut list leaves the composer empty and free:
// a line typed there closes the list and lands in the composer, as the real
// Codex showed. So is the composer Codex draws while it is still starting: a
// line submitted then is held ("Waiting for startup") and sent once it has
// started.
const (
	codexGlyph  = "›"                 // U+203A, the composer's first cell
	codexStatus = "esc to interrupt)" // the end of Codex's status line while a turn runs
)

// checkCodex is Check for a Codex row.
func checkCodex(s *screen.Screen, windows bool, notice string) Verdict {
	v := Verdict{Kind: NotFree, BoxTop: -1, BoxBottom: -1}
	r, c := s.CursorRow, s.CursorCol
	switch {
	case windows:
		v.Reason = "no Codex screen on Windows has been captured, so its composer is not known there"
		return v
	case r < 0 || r >= len(s.Lines):
		v.Reason = fmt.Sprintf("the cursor is on row %d, outside the screen's %d rows (counted from 0)", r, len(s.Lines))
		return v
	case c < 0 || c >= len(s.Lines[r]):
		v.Reason = fmt.Sprintf("the cursor is at column %d, outside the screen's %d columns (counted from 0)", c, len(s.Lines[r]))
		return v
	}
	if v.Reason = codexComposerReason(s, r); v.Reason != "" {
		return v
	}
	v.BoxTop, v.BoxBottom = r-1, r+1
	v.Kind, v.Reason = codexPromptVerdict(s, r, notice)
	return v
}

// codexComposerReason says why row r is not Codex's composer, "" when it is.
func codexComposerReason(s *screen.Screen, r int) string {
	cells := s.Lines[r]
	switch g := firstShown(cells); {
	case g < 0:
		return fmt.Sprintf("no Codex composer: the cursor's row %d is blank", r)
	case g != 0 || cells[0].Text != codexGlyph:
		return fmt.Sprintf("no Codex composer on the cursor's row %d: it does not start with %s in the first column; it reads %s", r, codexGlyph, quote(text(cells)))
	case cells[0].Dim:
		return fmt.Sprintf("the cursor's row %d is a prompt in Codex's history (its %s is dim), not the composer", r, codexGlyph)
	case len(cells) < 2 || cells[1].Text != " ":
		return fmt.Sprintf("Codex's %s on row %d is not followed by a space, as its composer draws it", codexGlyph, r)
	case r == 0 || text(s.Lines[r-1]) != "":
		return fmt.Sprintf("the row above Codex's composer (row %d) is not blank%s", r, shows(s, r-1))
	case r == len(s.Lines)-1 || text(s.Lines[r+1]) != "":
		return fmt.Sprintf("the row below Codex's composer (row %d) is not blank, so it holds a draft of more than one line%s", r, shows(s, r+1))
	}
	for a := r - 1; a >= 0; a-- {
		line := text(s.Lines[a])
		if g := firstShown(s.Lines[a]); g >= 0 && (s.Lines[a][g].Text == "•" || s.Lines[a][g].Text == "◦") && strings.Contains(line, codexStatus) {
			return fmt.Sprintf("Codex is working: row %d shows its status line %s", a, quote(line))
		}
	}
	return ""
}

// codexPromptVerdict reads the composer row r: the typed text after the glyph
// and its space, where the cursor sits, and the room for the notice.
func codexPromptVerdict(s *screen.Screen, r int, notice string) (Kind, string) {
	input := strings.TrimRight(typed(s.Lines[r][2:]), " ")
	switch {
	case input == notice:
		return HoldsNotice, ""
	case input != "":
		return NotFree, "Codex's composer holds a draft: " + quote(input)
	case s.CursorCol != 2:
		return NotFree, fmt.Sprintf("the cursor is at column %d of Codex's composer, not at column 2 where an empty composer puts it", s.CursorCol)
	}
	need := 2 + screen.TextWidth(notice) + 2
	if width := len(s.Lines[r]); need > width {
		return NotFree, fmt.Sprintf("the screen is %d columns wide, too narrow for the notice in Codex's composer: it needs %d (the glyph and its space, the %d-column notice, the cursor and one spare column); widen the row's terminal", width, need, screen.TextWidth(notice))
	}
	return Free, ""
}

// codexComposer is the row of Codex's composer StillRegion cuts below: the
// cursor's row when it starts with the glyph, else the lowest row that does.
func codexComposer(s *screen.Screen) (int, bool) {
	starts := func(r int) bool {
		return r >= 0 && r < len(s.Lines) && len(s.Lines[r]) > 0 && s.Lines[r][0].Text == codexGlyph && !s.Lines[r][0].Dim
	}
	if starts(s.CursorRow) {
		return s.CursorRow, true
	}
	for r := len(s.Lines) - 1; r >= 0; r-- {
		if starts(r) {
			return r, true
		}
	}
	return 0, false
}
