package wake

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/sotcomm/sotd/screen"
)

// FuzzCheck: the free-prompt test never panics on any screen, a parsed one or
// a ragged one a backend might hand over, and its verdicts keep their shape.
func FuzzCheck(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "check", "*.txtar"))
	for _, file := range files {
		if a, err := txtar.ParseFile(file); err == nil && len(a.Files) == 1 {
			f.Add(a.Files[0].Data)
		}
	}
	if len(files) == 0 {
		f.Fatal("no seed screens in testdata/check")
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if s, err := screen.Parse(bytes.NewReader(data)); err == nil {
			checkShape(t, s)
		}
		checkShape(t, ragged(data))
	})
}

// ragged builds a screen straight from bytes: rows of any length drawn from
// the characters the test cares about, dim at random, the cursor anywhere.
func ragged(data []byte) *screen.Screen {
	alphabet := []string{" ", "❯", ">", "─", nb, "●", "◯", "m", "a", "i", "n", "修", "x"}
	s := &screen.Screen{Cols: 20}
	var line []screen.Cell
	for i, b := range data {
		switch {
		case i == 0:
			s.CursorRow = int(int8(b))
		case i == 1:
			s.CursorCol = int(int8(b))
		case b == '\n':
			s.Lines = append(s.Lines, line)
			line = nil
		default:
			ch := alphabet[int(b&0x7f)%len(alphabet)]
			line = append(line, screen.Cell{Text: ch, Width: screen.TextWidth(ch), Dim: b&0x80 != 0})
		}
	}
	s.Lines = append(s.Lines, line)
	s.Rows = len(s.Lines)
	return s
}

func checkShape(t *testing.T, s *screen.Screen) {
	for _, windows := range []bool{false, true} {
		v := Check(s, Options{Windows: windows})
		_ = StillRegion(s, Options{Windows: windows})
		switch v.Kind {
		case NotFree:
			if v.Reason == "" {
				t.Fatalf("not free with no reason: %+v", v)
			}
		case Free, HoldsNotice:
			if v.Reason != "" || v.BoxTop < 0 || v.BoxBottom != v.BoxTop+2 || s.CursorRow != v.BoxTop+1 {
				t.Fatalf("%v with reason %q, box %d-%d, cursor row %d", v.Kind, v.Reason, v.BoxTop, v.BoxBottom, s.CursorRow)
			}
		default:
			t.Fatalf("unknown kind %d", v.Kind)
		}
		if v.Kind != NotFree && !strings.Contains(s.Line(v.BoxTop+1), nb) && !windows {
			t.Fatalf("%v off Windows without a no-break space on the prompt row %q", v.Kind, s.Line(v.BoxTop+1))
		}
	}
}
