package wake

import (
	"strings"

	"github.com/sotcomm/sotd/screen"
)

// StillRegion is the part of the screen the wake loop watches for its "holds
// still for 1.5 s" rule: every row from the top down to the input box's lower
// rule, with their dim cells and the cursor, in the screen text format. Claude
// Code's spinner and streaming output sit above the box, so a working session
// changes it several times a second; the footer and agents panel below the box
// tick at rest and are not watched. With no input box the whole screen is
// watched. Two regions are compared as strings.
func StillRegion(s *screen.Screen, opt Options) string {
	if s == nil {
		return ""
	}
	cut := *s
	if b, ok := findBox(s, promptGlyphs(opt.Windows)); ok {
		cut.Lines = s.Lines[:b.prompt+2]
		cut.Rows = len(cut.Lines)
	}
	var w strings.Builder
	_ = screen.Write(&w, &cut) // a strings.Builder takes every write
	return w.String()
}
