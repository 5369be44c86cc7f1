package wake

import (
	"strings"
	"testing"

	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/screen"
)

const nb = "\u00a0"

var line80 = strings.Repeat("─", 80)

// claude is an 80x8 Claude Code screen at rest with the given prompt row
// (row 4) and rows below the box (from row 6), the cursor at (4, 2).
func claude(prompt string, below ...string) *screen.Screen {
	lines := append([]string{"✻ Worked for 3s", "", "", line80, prompt, line80}, below...)
	return screen.FromText(lines, 80, 8, 4, 2)
}

func TestCheckVerdictFields(t *testing.T) {
	tests := []struct {
		name           string
		s              *screen.Screen
		opt            Options
		want           Kind
		wantTop, wantB int
		reason         string
	}{
		{"free box rows", claude("❯" + nb), Options{}, Free, 3, 5, ""},
		{"holds the notice", claude("❯" + nb + registry.WakeNotice), Options{}, HoldsNotice, 3, 5, ""},
		{"another notice", claude("❯" + nb + "[x] wake up"), Options{Notice: "[x] wake up"}, HoldsNotice, 3, 5, ""},
		{"the default notice is a draft when another is set", claude("❯" + nb + registry.WakeNotice), Options{Notice: "[x] wake up"}, NotFree, 3, 5, "holds a draft"},
		{"a longer notice needs a wider box", claude("❯" + nb), Options{Notice: strings.Repeat("n", 77)}, NotFree, 3, 5, "it needs 81"},
		{"box found, cursor elsewhere", func() *screen.Screen { s := claude("❯" + nb); s.CursorRow = 0; return s }(), Options{}, NotFree, 3, 5, "row 0, not the prompt row 4"},
		{"no box", screen.FromText([]string{"$ "}, 80, 3, 0, 2), Options{}, NotFree, -1, -1, "no prompt glyph"},
		{"nil screen", nil, Options{}, NotFree, -1, -1, "the screen is empty"},
		{"no rows", &screen.Screen{Cols: 80}, Options{}, NotFree, -1, -1, "the screen is empty"},
		{"negative cursor", func() *screen.Screen { s := claude("❯" + nb); s.CursorRow, s.CursorCol = -1, -1; return s }(), Options{}, NotFree, 3, 5, "row -1, outside"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := Check(tc.s, tc.opt)
			if v.Kind != tc.want || v.BoxTop != tc.wantTop || v.BoxBottom != tc.wantB {
				t.Errorf("Check = %v (box %d-%d), want %v (box %d-%d)", v, v.BoxTop, v.BoxBottom, tc.want, tc.wantTop, tc.wantB)
			}
			if !strings.Contains(v.Reason, tc.reason) || (tc.reason == "") != (v.Reason == "") {
				t.Errorf("reason %q, want %q", v.Reason, tc.reason)
			}
		})
	}
}

// Dim is read only where typed input is: after the glyph. A dim rule, glyph
// or panel line reads as it shows.
func TestCheckReadsDimOnlyAsInput(t *testing.T) {
	dim := func(s *screen.Screen, row, first, last int) *screen.Screen {
		for c := first; c <= last; c++ {
			s.Lines[row][c].Dim = true
		}
		return s
	}
	tests := []struct {
		name string
		s    *screen.Screen
		opt  Options
		want string
	}{
		{"dim rules are still rules", dim(dim(claude("❯"+nb), 3, 0, 79), 5, 0, 79), Options{}, "free"},
		{"a dim glyph is still the glyph", dim(claude("❯"+nb), 4, 0, 0), Options{}, "free"},
		{"a dim wide suggestion reads empty", dim(claude("❯"+nb+"修复"), 4, 2, 5), Options{}, "free"},
		{"a dim no-break space reads as a plain space", dim(claude("❯"+nb), 4, 1, 1), Options{}, "not free: the prompt glyph is followed by a plain space"},
		{"... which Windows takes as a bare glyph", dim(claude("❯"+nb), 4, 1, 1), Options{Windows: true}, "free"},
		{"a dim panel line reads as it shows", dim(claude("❯"+nb, "  ◯ main", "  ● general-purpose"), 7, 0, 19), Options{}, "not free: the agents panel marks \"● general-purpose\""},
		{"dim text before the glyph is text", dim(claude("x❯"+nb), 4, 0, 0), Options{}, "not free: text before the prompt glyph"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Check(tc.s, tc.opt).String(); !strings.HasPrefix(got, tc.want) {
				t.Errorf("Check = %q, want it to start %q", got, tc.want)
			}
		})
	}
}

// A backend may hand over lines shorter or longer than Cols; the test reads
// the cells that are there.
func TestCheckRaggedScreens(t *testing.T) {
	s := claude("❯" + nb)
	s.Lines[4] = s.Lines[4][:3] // the prompt row cut short after the cursor
	s.Lines[6] = s.Lines[6][:0] // an empty row below
	s.Lines = s.Lines[:7]       // fewer lines than Rows
	if v := Check(s, Options{}); v.Kind != Free {
		t.Errorf("Check = %v, want free", v)
	}
	s.Lines[4] = s.Lines[4][:1] // the glyph alone, no cell after it
	if got, want := Check(s, Options{}).String(), "not free: the cursor is at column 2, outside the screen's 1 columns"; !strings.HasPrefix(got, want) {
		t.Errorf("Check = %q, want %q", got, want)
	}
	s.CursorCol = 0
	if got, want := Check(s, Options{}).String(), "not free: the prompt glyph is followed by nothing"; !strings.HasPrefix(got, want) {
		t.Errorf("Check = %q, want %q", got, want)
	}
}

func TestKindAndVerdictStrings(t *testing.T) {
	var zero Verdict
	if zero.Kind != NotFree {
		t.Errorf("the zero Kind is %v, want not free so an unset verdict never types", zero.Kind)
	}
	for v, want := range map[Verdict]string{
		{Kind: Free}:                       "free",
		{Kind: HoldsNotice}:                "holds the notice",
		{Kind: NotFree, Reason: "a draft"}: "not free: a draft",
		{Kind: Kind(9), Reason: "?"}:       "not free: ?",
	} {
		if got := v.String(); got != want {
			t.Errorf("%#v.String() = %q, want %q", v, got, want)
		}
	}
}

func TestCheckFileRefusesWhatIsNotAScreen(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"no trailer", "❯" + nb + "\n", "not a screen file: no trailer: the last line must read cols=C rows=R cursor=ROW,COL (0-based), after the screen's rows (save one with `sotd rows screen ID`)"},
		{"too wide", "abc\ncols=2 rows=1 cursor=0,0\n", "not a screen file: line 1: the row is 3 columns wide, wider than the trailer's cols=2 (save one with `sotd rows screen ID`)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, code := CheckFile(strings.NewReader(tc.in), Options{})
			if out != tc.want || code != 2 {
				t.Errorf("CheckFile = %q, %d\nwant %q, 2", out, code, tc.want)
			}
		})
	}
}

// codex is a Codex screen at rest, 80 columns wide, with the given composer
// row (row 4 when nothing is added above it), the cursor after its "› ", and
// rows added above it.
func codex(composer string, above ...string) *screen.Screen {
	lines := append(append([]string{"› fix the build", "", "• Done."}, above...), "", composer, "", "  gpt-5 default · ~/proj")
	return screen.FromText(lines, 80, 8, len(lines)-3, 2)
}

// The Codex rules beyond the captured screens: what each one refuses.
func TestCheckCodex(t *testing.T) {
	cx := Options{Agent: rows.Codex}
	tests := []struct {
		name string
		s    *screen.Screen
		opt  Options
		want string
	}{
		{"an empty composer", codex("› "), cx, "free"},
		{"Claude Code's rules do not read it", codex("› "), Options{}, "not free: no prompt glyph ❯"},
		{"a prompt in the history, its glyph dim", func() *screen.Screen { s := codex("› "); s.Lines[4][0].Dim = true; return s }(), cx, "not free: the cursor's row 4 is a prompt in Codex's history"},
		{"the glyph not in the first column", func() *screen.Screen { s := codex("  › "); s.CursorCol = 4; return s }(), cx, "not free: no Codex composer on the cursor's row 4"},
		{"a no-break space after the glyph", codex("›" + nb), cx, "not free: Codex's › on row 4 is not followed by a space"},
		{"the cursor one cell further on", func() *screen.Screen { s := codex("› "); s.CursorCol = 3; return s }(), cx, "not free: the cursor is at column 3"},
		{"Claude Code's glyph", codex("❯ "), cx, "not free: no Codex composer"},
		{"a status line that is not Codex's", codex("› ", "  press esc to interrupt)"), cx, "free"},
		{"Codex's status line", codex("› ", "◦ Thinking (12s • esc to interrupt)"), cx, "not free: Codex is working: row 3"},
		{"text right above the composer", func() *screen.Screen {
			s := codex("› ")
			s.Lines[3] = screen.FromText([]string{"  ↳ queued"}, 80, 1, 0, 0).Lines[0]
			return s
		}(), cx, "not free: the row above Codex's composer (row 4) is not blank; row 3 reads \"↳ queued\""},
		{"the notice", codex("› " + registry.WakeNotice), cx, "holds the notice"},
		{"the notice and one more character", codex("› " + registry.WakeNotice + "x"), cx, "not free: Codex's composer holds a draft"},
		{"on Windows", codex("› "), Options{Agent: rows.Codex, Windows: true}, "not free: no Codex screen on Windows"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Check(tc.s, tc.opt).String(); !strings.HasPrefix(got, tc.want) {
				t.Errorf("Check = %q, want it to start %q", got, tc.want)
			}
		})
	}
}
