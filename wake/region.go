package wake

import (
	"strings"
	"time"

	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/screen"
)

// StillRegion is the part of the screen the wake loop watches for its "holds
// still for 1.5 s" rule: every row from the top down to the input box's lower
// rule, with their dim cells and the cursor, in the screen text format. Claude
// Code's spinner and streaming output sit above the box, so a working session
// changes it several times a second; the footer and agents panel below the box
// tick at rest and are not watched. On a Codex screen the region ends with
// the blank row below the composer, so Codex's footer is not watched and its
// status line above the composer ("• Working (3s • esc to interrupt)"), which
// ticks every second, is. With no input box or composer the whole screen is
// watched. Two regions are compared as strings.
func StillRegion(s *screen.Screen, opt Options) string {
	if s == nil {
		return ""
	}
	cut := *s
	cut.Lines = s.Lines[:regionRows(s, opt)]
	cut.Rows = len(cut.Lines)
	var w strings.Builder
	_ = screen.Write(&w, &cut) // a strings.Builder takes every write
	return w.String()
}

// regionChanged is when the region StillRegion watches last changed by the
// screen's own change times (screen.Screen's Changed): the latest of its rows'
// and the cursor's. It is zero when the screen carries none.
func regionChanged(s *screen.Screen, opt Options) time.Time {
	if s == nil || len(s.Changed) != len(s.Lines) {
		return time.Time{}
	}
	last := s.CursorMoved
	for _, at := range s.Changed[:regionRows(s, opt)] {
		if at.After(last) {
			last = at
		}
	}
	return last
}

// regionRows is how many rows from the top StillRegion watches.
func regionRows(s *screen.Screen, opt Options) int {
	if r, ok := composerRow(s, opt); ok {
		return min(r+2, len(s.Lines))
	}
	return len(s.Lines)
}

// composerRow is the row the agent's prompt is on: Claude Code's input box's
// prompt row, or Codex's composer.
func composerRow(s *screen.Screen, opt Options) (int, bool) {
	if opt.Agent == rows.Codex {
		return codexComposer(s)
	}
	b, ok := findBox(s, promptGlyphs(opt.Windows))
	return b.prompt, ok
}
