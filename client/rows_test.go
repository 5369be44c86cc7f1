package client

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sotcomm/sotd/screen"
	"github.com/sotcomm/sotd/wire"
)

// TestScreenOfRoundTrips: pty.screen's answer saved by screen.Write reads
// back as the same screen, dim cells included, so sotd wake check sees what
// the row showed.
func TestScreenOfRoundTrips(t *testing.T) {
	ps := wire.PtyScreen{
		Cols: 20, Rows: 3,
		Lines:  []string{"╭─ hello", "│ > try it", ""},
		Cursor: wire.Cursor{Row: 1, Col: 4},
		Dim:    "1:4-9",
	}
	s, err := screenOf(ps)
	if err != nil {
		t.Fatal(err)
	}
	if s.Cols != 20 || s.Rows != 3 || s.CursorRow != 1 || s.CursorCol != 4 {
		t.Fatalf("screenOf = %dx%d cursor %d,%d", s.Cols, s.Rows, s.CursorRow, s.CursorCol)
	}
	if !s.Lines[1][4].Dim || s.Lines[1][3].Dim {
		t.Fatalf("dim cells lost: %+v", s.Lines[1][:6])
	}
	var b bytes.Buffer
	if err := screen.Write(&b, s); err != nil {
		t.Fatal(err)
	}
	want := "╭─ hello\n│ > try it\n\ncols=20 rows=3 cursor=1,4\ndim=1:4-9\n"
	if b.String() != want {
		t.Fatalf("saved\n%s\nwant\n%s", b.String(), want)
	}
}

func TestScreenOfRefusesWhatDoesNotParse(t *testing.T) {
	if _, err := screenOf(wire.PtyScreen{Cols: -1, Rows: 2}); err == nil {
		t.Fatal("a negative width read back as a screen")
	}
}

func TestAbsFolder(t *testing.T) {
	cwd := t.TempDir()
	if err := os.Mkdir(filepath.Join(cwd, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(cwd, "file"), nil, 0o600)
	for _, tc := range []struct{ dir, want string }{
		{"", cwd},
		{"sub", filepath.Join(cwd, "sub")},
		{"./sub/", filepath.Join(cwd, "sub")},
		{filepath.Join(cwd, "sub", ".."), cwd},
	} {
		if got, err := absFolder(tc.dir, cwd); err != nil || got != tc.want {
			t.Errorf("absFolder(%q) = %q, %v; want %q", tc.dir, got, err, tc.want)
		}
	}
	for _, dir := range []string{"file", "missing"} {
		if _, err := absFolder(dir, cwd); err == nil || err.Error() != "--cwd "+dir+" is not a folder" {
			t.Errorf("absFolder(%q) = %v", dir, err)
		}
	}
}

func TestRowPhase(t *testing.T) {
	code := func(n int) *int { return &n }
	for _, tc := range []struct {
		w    wire.Workspace
		want string
	}{
		{wire.Workspace{Phase: "Ready"}, "Ready"},
		{wire.Workspace{Phase: "Stopped", ExitCode: code(3)}, "Stopped (exit 3)"},
		{wire.Workspace{Phase: "Stopped", ExitCode: code(0)}, "Stopped (exit 0)"},
		{wire.Workspace{Phase: "Stopped", ExitCode: code(-1)}, "Stopped (killed by a signal)"},
	} {
		if got := RowPhase(tc.w); got != tc.want {
			t.Errorf("RowPhase(%+v) = %q, want %q", tc.w, got, tc.want)
		}
	}
}
