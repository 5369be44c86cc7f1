package screen

import (
	"reflect"
	"testing"
)

func texts(cells []Cell) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = c.Text
	}
	return out
}

func widths(cells []Cell) []int {
	out := make([]int, len(cells))
	for i, c := range cells {
		out[i] = c.Width
	}
	return out
}

func TestFromTextPlacesGraphemesByDisplayWidth(t *testing.T) {
	tests := []struct {
		name       string
		line       string
		cols       int
		wantTexts  []string
		wantWidths []int
	}{
		{"ascii padded", "ab", 4, []string{"a", "b", " ", " "}, []int{1, 1, 1, 1}},
		{"cut to cols", "abcdef", 3, []string{"a", "b", "c"}, []int{1, 1, 1}},
		{"prompt glyph and no-break space", "❯\u00a0x", 3, []string{"❯", "\u00a0", "x"}, []int{1, 1, 1}},
		{"CJK fills two cells each", "修复", 5, []string{"修", "", "复", "", " "}, []int{2, 0, 2, 0, 1}},
		{"emoji fills two cells", "👍!", 3, []string{"👍", "", "!"}, []int{2, 0, 1}},
		{"emoji with skin tone is one grapheme", "👍🏽", 2, []string{"👍🏽", ""}, []int{2, 0}},
		{"combining mark joins its base", "e\u0301x", 2, []string{"e\u0301", "x"}, []int{1, 1}},
		{"zero-width characters take no cell", "a\u200b\tb", 3, []string{"a", "b", " "}, []int{1, 1, 1}},
		{"a wide character cut by the edge is dropped", "ab修", 3, []string{"a", "b", " "}, []int{1, 1, 1}},
		{"empty line is blank", "", 2, []string{" ", " "}, []int{1, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := FromText([]string{tc.line}, tc.cols, 1, 0, 0)
			if got := texts(s.Lines[0]); !reflect.DeepEqual(got, tc.wantTexts) {
				t.Errorf("texts = %q, want %q", got, tc.wantTexts)
			}
			if got := widths(s.Lines[0]); !reflect.DeepEqual(got, tc.wantWidths) {
				t.Errorf("widths = %v, want %v", got, tc.wantWidths)
			}
		})
	}
}

func TestFromTextShape(t *testing.T) {
	tests := []struct {
		name             string
		lines            []string
		cols, rows       int
		wantCols, wantRs int
	}{
		{"missing rows are blank", []string{"a"}, 3, 4, 3, 4},
		{"extra lines are dropped", []string{"a", "b", "c"}, 2, 2, 2, 2},
		{"negative sizes are empty", []string{"a"}, -1, -5, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := FromText(tc.lines, tc.cols, tc.rows, 7, 9)
			if s.Cols != tc.wantCols || s.Rows != tc.wantRs || len(s.Lines) != tc.wantRs {
				t.Fatalf("got %dx%d with %d lines, want %dx%d", s.Cols, s.Rows, len(s.Lines), tc.wantCols, tc.wantRs)
			}
			for r, l := range s.Lines {
				if len(l) != tc.wantCols {
					t.Errorf("row %d has %d cells, want %d", r, len(l), tc.wantCols)
				}
			}
			if s.CursorRow != 7 || s.CursorCol != 9 {
				t.Errorf("cursor = %d,%d, want 7,9 as given", s.CursorRow, s.CursorCol)
			}
		})
	}
}

func TestLine(t *testing.T) {
	s := FromText([]string{"修x"}, 4, 1, 0, 0)
	if got, want := s.Line(0), "修x "; got != want {
		t.Errorf("Line(0) = %q, want %q", got, want)
	}
	if got := s.Line(1); got != "" {
		t.Errorf("Line(1) off the screen = %q, want empty", got)
	}
}

func TestTextWidth(t *testing.T) {
	for text, want := range map[string]int{
		"[sot-comm] you have mail: run comm-poll.sh": 42,
		"修复测试":    8,
		"❯\u00a0": 2,
		"":        0,
		"a\tb":    2,
	} {
		if got := TextWidth(text); got != want {
			t.Errorf("TextWidth(%q) = %d, want %d", text, got, want)
		}
	}
}
