package screen

import (
	"fmt"
	"strings"
)

// DimRanges names the dim cells of s as ROW:FIRST-LAST runs (inclusive,
// 0-based), comma separated; "" when no cell is dim.
func DimRanges(s *Screen) string {
	var runs []string
	for r := 0; r < len(s.Lines) && r < s.Rows; r++ {
		cells := s.Lines[r]
		n := min(len(cells), s.Cols)
		for c := 0; c < n; c++ {
			if !cells[c].Dim {
				continue
			}
			first := c
			for c+1 < n && cells[c+1].Dim {
				c++
			}
			runs = append(runs, fmt.Sprintf("%d:%d-%d", r, first, c))
		}
	}
	return strings.Join(runs, ",")
}

// applyDim marks the cells a dim= line names.
func applyDim(s *Screen, spec string) error {
	if spec == "" {
		return nil
	}
	for _, run := range strings.Split(spec, ",") {
		r, first, last, err := dimRun(run)
		if err != nil {
			return fmt.Errorf("dim run %q must read ROW:FIRST-LAST or ROW:COL: %w", run, err)
		}
		if r >= s.Rows || first > last || last >= s.Cols {
			return fmt.Errorf("dim run %q lies off the %dx%d screen (rows and columns count from 0)", run, s.Cols, s.Rows)
		}
		for c := first; c <= last; c++ {
			s.Lines[r][c].Dim = true
		}
	}
	return nil
}

func dimRun(run string) (r, first, last int, err error) {
	row, span, ok := strings.Cut(run, ":")
	if !ok {
		return 0, 0, 0, fmt.Errorf("no ':' after the row")
	}
	if r, err = number(row); err != nil {
		return 0, 0, 0, err
	}
	a, b, ranged := strings.Cut(span, "-")
	if first, err = number(a); err != nil {
		return 0, 0, 0, err
	}
	last = first
	if ranged {
		last, err = number(b)
	}
	return r, first, last, err
}
