package wake

import (
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/screen"
)

func TestStillRegion(t *testing.T) {
	rest := func() *screen.Screen {
		return claude("❯"+nb, "  ⏵⏵ auto mode on · 1 shell", "  ◯ general-purpose  3m 9s")
	}
	tests := []struct {
		name   string
		change func(*screen.Screen) *screen.Screen
		same   bool
	}{
		{"the same screen", func(s *screen.Screen) *screen.Screen { return s }, true},
		{"the panel's clock ticks below the box", func(*screen.Screen) *screen.Screen {
			return claude("❯"+nb, "  ⏵⏵ auto mode on · 1 shell", "  ◯ general-purpose  3m 10s")
		}, true},
		{"the spinner above the box moves", func(*screen.Screen) *screen.Screen {
			s := claude("❯"+nb, "  ⏵⏵ auto mode on · 1 shell", "  ◯ general-purpose  3m 9s")
			s.Lines[0] = screen.FromText([]string{"✢ Levitating… (57s)"}, 80, 1, 0, 0).Lines[0]
			return s
		}, false},
		{"a suggestion turns dim in the box", func(*screen.Screen) *screen.Screen {
			s := rest()
			s.Lines[4][1].Dim = true
			return s
		}, false},
		{"the cursor moves", func(s *screen.Screen) *screen.Screen { s.CursorCol = 1; return s }, false},
		{"a draft is typed", func(*screen.Screen) *screen.Screen {
			return claude("❯"+nb+"x", "  ⏵⏵ auto mode on · 1 shell", "  ◯ general-purpose  3m 9s")
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := StillRegion(rest(), Options{}), StillRegion(tc.change(rest()), Options{})
			if (a == b) != tc.same {
				t.Errorf("same = %v, want %v\n%s\n%s", a == b, tc.same, a, b)
			}
		})
	}
}

func TestStillRegionEndsAtTheLowerRule(t *testing.T) {
	got := StillRegion(claude("❯"+nb, "  footer"), Options{})
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if n := len(lines); n != 7 || lines[5] != line80 || lines[6] != "cols=80 rows=6 cursor=4,2" {
		t.Errorf("region has %d lines, want the 6 rows through the lower rule and the trailer:\n%s", n, got)
	}
	if strings.Contains(got, "footer") {
		t.Errorf("the region holds the footer:\n%s", got)
	}
}

func TestStillRegionWithoutABoxIsTheWholeScreen(t *testing.T) {
	s := screen.FromText([]string{"$ make", "building…"}, 20, 3, 1, 9)
	if got, want := StillRegion(s, Options{}), "$ make\nbuilding…\n\ncols=20 rows=3 cursor=1,9\n"; got != want {
		t.Errorf("StillRegion = %q, want %q", got, want)
	}
	if got := StillRegion(nil, Options{}); got != "" {
		t.Errorf("StillRegion(nil) = %q, want empty", got)
	}
}

func TestStillRegionFollowsTheWindowsGlyph(t *testing.T) {
	s := screen.FromText([]string{"out", line80, ">", line80, "footer"}, 80, 5, 2, 2)
	if got := StillRegion(s, Options{Windows: true}); strings.Contains(got, "footer") {
		t.Errorf("on Windows the > box bounds the region:\n%s", got)
	}
	if got := StillRegion(s, Options{}); !strings.Contains(got, "footer") {
		t.Errorf("off Windows > is no box, so the whole screen is watched:\n%s", got)
	}
}

// regionChanged reads the change times of the rows StillRegion watches and of
// the cursor, and of no row below the box.
func TestRegionChanged(t *testing.T) {
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	stamped := func(rowsAt []int, cursor int) *screen.Screen {
		s := claude("❯"+nb, "  footer") // 8 rows: the box's rules are rows 3 and 5, the footer 6
		for _, sec := range rowsAt {
			s.Changed = append(s.Changed, at(sec))
		}
		s.CursorMoved = at(cursor)
		return s
	}
	tests := []struct {
		name string
		s    *screen.Screen
		want time.Time
	}{
		{"a row above the box", stamped([]int{9, 1, 1, 1, 1, 1, 1, 1}, 1), at(9)},
		{"the lower rule", stamped([]int{1, 1, 1, 1, 1, 9, 1, 1}, 1), at(9)},
		{"the footer and the row below it", stamped([]int{1, 2, 1, 1, 1, 1, 9, 9}, 1), at(2)},
		{"the cursor", stamped([]int{1, 1, 1, 1, 1, 1, 1, 1}, 9), at(9)},
		{"no change times (tmux)", claude("❯"+nb, "  footer"), time.Time{}},
		{"change times for some rows only", stamped([]int{1, 1}, 1), time.Time{}},
		{"no screen", nil, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := regionChanged(tc.s, Options{}); !got.Equal(tc.want) {
				t.Errorf("regionChanged = %v, want %v", got, tc.want)
			}
		})
	}
}
