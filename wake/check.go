package wake

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/screen"
)

// Check runs the free-prompt test (see the package doc) on one screen. It never
// panics, whatever the screen holds: a nil or ragged screen is not free.
func Check(s *screen.Screen, opt Options) Verdict {
	notice := opt.Notice
	if notice == "" {
		notice = registry.WakeNotice
	}
	glyphs := promptGlyphs(opt.Windows)
	v := Verdict{Kind: NotFree, BoxTop: -1, BoxBottom: -1}
	if s == nil || len(s.Lines) == 0 {
		v.Reason = "the screen is empty: it has no rows"
		return v
	}
	if opt.Agent == rows.Codex {
		return checkCodex(s, opt.Windows, notice)
	}
	b, found := findBox(s, glyphs)
	if found {
		v.BoxTop, v.BoxBottom = b.prompt-1, b.prompt+1
	}
	if v.Reason = cursorReason(s, b, found, opt.Windows); v.Reason != "" {
		return v
	}
	v.Kind, v.Reason = promptVerdict(s, b, opt.Windows, notice)
	return v
}

// cursorReason says why the cursor is not on an input box's prompt row, ""
// when it is.
func cursorReason(s *screen.Screen, b box, found, windows bool) string {
	r, c := s.CursorRow, s.CursorCol
	switch {
	case r < 0 || r >= len(s.Lines):
		return fmt.Sprintf("the cursor is on row %d, outside the screen's %d rows (counted from 0)", r, len(s.Lines))
	case c < 0 || c >= len(s.Lines[r]):
		return fmt.Sprintf("the cursor is at column %d, outside the screen's %d columns (counted from 0)", c, len(s.Lines[r]))
	case found && r != b.prompt:
		return fmt.Sprintf("the cursor is on row %d, not the prompt row %d", r, b.prompt)
	case found:
		return ""
	}
	cells, glyphs := s.Lines[r], promptGlyphs(windows)
	g := firstShown(cells)
	switch {
	case g < 0:
		return fmt.Sprintf("no input box: the cursor's row %d is blank, and no row shows the prompt glyph between two input box rules", r)
	case slices.Contains(glyphs, cells[g].Text) && (r == 0 || !isRule(s.Lines[r-1])):
		return fmt.Sprintf("no input box rule above the prompt row %d%s", r, shows(s, r-1))
	case slices.Contains(glyphs, cells[g].Text):
		return fmt.Sprintf("no input box rule below the prompt row %d%s", r, shows(s, r+1))
	}
	for i := g + 1; i < len(cells); i++ {
		if slices.Contains(glyphs, cells[i].Text) {
			return fmt.Sprintf("text before the prompt glyph on row %d: %s", r, quote(text(cells[:i])))
		}
	}
	if cells[g].Text == ">" {
		return fmt.Sprintf("the cursor's row %d starts with \">\", a prompt glyph only on Windows", r)
	}
	return fmt.Sprintf("no prompt glyph %s on the cursor's row %d: it reads %s", strings.Join(glyphs, " or "), r, quote(text(cells)))
}

// promptVerdict reads the prompt row the cursor is on: what follows the glyph,
// where the cursor sits, the agents panel and the room for the notice.
func promptVerdict(s *screen.Screen, b box, windows bool, notice string) (Kind, string) {
	cells := s.Lines[b.prompt]
	after := cells[b.glyph+1:]
	sep := ""
	if len(after) > 0 {
		sep = typed(after[:1])
		after = after[1:]
	}
	input := strings.TrimRight(typed(after), " ")
	if sep != nbsp && !(windows && (sep == " " || sep == "")) {
		return NotFree, separatorReason(sep, input)
	}
	if input != "" && input != notice {
		return NotFree, "the input box holds a draft: " + quote(input)
	}
	if input == "" {
		if d := s.CursorCol - b.glyph; d != 1 && d != 2 {
			return NotFree, fmt.Sprintf("the cursor is at column %d of the prompt row, not one or two cells after the prompt glyph at column %d", s.CursorCol, b.glyph)
		}
	}
	if r := panelReason(s, b.prompt+2); r != "" {
		return NotFree, r
	}
	if input == notice {
		return HoldsNotice, ""
	}
	return fitVerdict(s, b, notice)
}

func separatorReason(sep, input string) string {
	what := quote(sep)
	switch sep {
	case " ":
		what = "a plain space"
	case "":
		what = "nothing"
	}
	reason := "the prompt glyph is followed by " + what + ", not the no-break space (U+00A0) that marks Claude Code's main prompt (menus and dialogs draw a plain space)"
	if input != "" {
		reason += "; the row goes on " + quote(input)
	}
	return reason
}

// fitVerdict asks whether the box leaves room on the prompt row for the
// glyph, its space, the notice, the cursor after it and one spare column.
func fitVerdict(s *screen.Screen, b box, notice string) (Kind, string) {
	width := min(ruleEnd(s.Lines[b.prompt-1]), ruleEnd(s.Lines[b.prompt+1]))
	need := b.glyph + 2 + screen.TextWidth(notice) + 2
	if need > width {
		return NotFree, fmt.Sprintf("the input box is %d columns wide, too narrow for the notice: it needs %d (the glyph and its space, the %d-column notice, the cursor and one spare column); widen the row's terminal", width, need, screen.TextWidth(notice))
	}
	return Free, ""
}
