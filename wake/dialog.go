package wake

import (
	"strings"
	"unicode/utf8"

	"github.com/sotcomm/sotd/screen"
)

// DialogTitleMax is the longest dialog title Dialog returns, in characters.
const DialogTitleMax = 80

// Dialog reports whether s shows a dialog that waits on a person, the way
// Claude Code draws its permission and choice dialogs: a question that ends in
// "?", then, at most two rows below it, a numbered list whose first option
// carries the selection glyph ("❯ 1. Yes") with option 2 under it. title is the
// question, cut to DialogTitleMax characters. Claude Code sends no hook event
// when such a dialog shows, so the daemon reads it off the screen; a list
// without a question above it (a plan, a typed "❯ 1." draft) is not one.
func Dialog(s *screen.Screen, windows bool) (title string, ok bool) {
	if s == nil {
		return "", false
	}
	text := make([]string, len(s.Lines))
	for r := range s.Lines {
		text[r] = strings.TrimSpace(strings.ReplaceAll(s.Line(r), "\u00a0", " "))
	}
	for r, t := range text {
		if !firstOption(t, windows) || !secondOption(text, r) {
			continue
		}
		if q, ok := questionAbove(text, r); ok {
			return clip(q), true
		}
	}
	return "", false
}

// firstOption reports whether t is a list's selected first option.
func firstOption(t string, windows bool) bool {
	for _, g := range promptGlyphs(windows) {
		if rest, ok := strings.CutPrefix(t, g); ok && strings.HasPrefix(strings.TrimLeft(rest, " "), "1.") {
			return true
		}
	}
	return false
}

// secondOption reports whether the next non-blank row after r is option 2.
func secondOption(text []string, r int) bool {
	for _, t := range text[r+1:] {
		if t != "" {
			return strings.HasPrefix(t, "2.")
		}
	}
	return false
}

// questionAbove is the first non-blank row above r when it is at most two rows
// up and ends in "?".
func questionAbove(text []string, r int) (string, bool) {
	for q := r - 1; q >= 0 && q >= r-2; q-- {
		if text[q] != "" {
			return text[q], strings.HasSuffix(text[q], "?")
		}
	}
	return "", false
}

func clip(s string) string {
	if utf8.RuneCountInString(s) <= DialogTitleMax {
		return s
	}
	r := []rune(s)
	return string(r[:DialogTitleMax-1]) + "…"
}
