package wake

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/sotcomm/sotd/screen"
)

const (
	rule = "─"      // U+2500, the input box's rules
	nbsp = "\u00a0" // after the glyph: Claude Code's main prompt, not a menu
)

// ruleRun is compiled on first use, so a client verb that never judges a
// screen does not compile it at package init.
var ruleRun = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("─{4,}") })

// promptGlyphs are the glyphs that open Claude Code's input line: ❯, and on
// Windows also >, which Claude Code draws when its unicode check fails.
func promptGlyphs(windows bool) []string {
	if windows {
		return []string{"❯", ">"}
	}
	return []string{"❯"}
}

// box is the input box the test found: the prompt row between its two rules,
// and the glyph's column.
type box struct{ prompt, glyph int }

// findBox finds the prompt row: a row whose first non-blank cell is a prompt
// glyph, directly between two rules. The cursor's row wins; otherwise the
// lowest such row, which is where Claude Code draws its input box.
func findBox(s *screen.Screen, glyphs []string) (box, bool) {
	if g, ok := boxedAt(s, s.CursorRow, glyphs); ok {
		return box{s.CursorRow, g}, true
	}
	for r := len(s.Lines) - 2; r > 0; r-- {
		if g, ok := boxedAt(s, r, glyphs); ok {
			return box{r, g}, true
		}
	}
	return box{}, false
}

func boxedAt(s *screen.Screen, r int, glyphs []string) (int, bool) {
	if r <= 0 || r >= len(s.Lines)-1 {
		return 0, false
	}
	g := firstShown(s.Lines[r])
	if g < 0 || !slices.Contains(glyphs, s.Lines[r][g].Text) || !isRule(s.Lines[r-1]) || !isRule(s.Lines[r+1]) {
		return 0, false
	}
	return g, true
}

// isRule reports whether a row is an input box rule: ─ across, or ─…─ label ─…─
// with one label set into it, a space on each side of it.
func isRule(cells []screen.Cell) bool {
	line := text(cells)
	if line == "" || !strings.HasPrefix(line, rule) || !strings.HasSuffix(line, rule) {
		return false
	}
	label := strings.Trim(line, rule)
	if label == "" {
		return true
	}
	return strings.HasPrefix(label, " ") && strings.HasSuffix(label, " ") &&
		strings.TrimSpace(label) != "" && !strings.Contains(label, rule)
}

// ruleEnd is the column just past a rule's last ─.
func ruleEnd(cells []screen.Cell) int {
	for c := len(cells) - 1; c >= 0; c-- {
		if !blank(cells[c]) {
			return c + max(cells[c].Width, 1)
		}
	}
	return 0
}

func blank(c screen.Cell) bool { return c.Text == "" || c.Text == " " }

// firstShown is the column of a row's first non-blank cell, -1 for a blank row.
func firstShown(cells []screen.Cell) int {
	for c, cell := range cells {
		if !blank(cell) {
			return c
		}
	}
	return -1
}

// text is a row as it shows, dim cells included, trailing spaces cut.
func text(cells []screen.Cell) string {
	var b strings.Builder
	for _, c := range cells {
		b.WriteString(c.Text)
	}
	return strings.TrimRight(b.String(), " ")
}

// typed is the text of cells as the test reads typed input: a dim cell is
// Claude Code's suggestion or placeholder, so it reads as a space.
func typed(cells []screen.Cell) string {
	var b strings.Builder
	for _, c := range cells {
		switch {
		case c.Dim && c.Width > 0:
			b.WriteByte(' ')
		case !c.Dim:
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// quote shows screen text in a reason: trimmed, a run of rule drawn as ─…─ so
// what sits between runs shows, cut to 30 characters, quoted so a no-break
// space or a stray control character is visible.
func quote(s string) string {
	s = ruleRun().ReplaceAllString(strings.TrimSpace(s), "─…─")
	if r := []rune(s); len(r) > 30 {
		s = strings.TrimRight(string(r[:30]), " ") + "…"
	}
	return fmt.Sprintf("%q", s)
}

// shows says what row r holds, for a reason that names a missing rule.
func shows(s *screen.Screen, r int) string {
	switch {
	case r < 0:
		return "; it is the top row"
	case r >= len(s.Lines):
		return "; it is the bottom row"
	case text(s.Lines[r]) == "":
		return fmt.Sprintf("; row %d is blank", r)
	default:
		return fmt.Sprintf("; row %d reads %s", r, quote(text(s.Lines[r])))
	}
}
