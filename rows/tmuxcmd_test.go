package rows

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/screen"
)

func TestParsePane(t *testing.T) {
	spec := Spec{ID: "ws-a", Label: "tab\there", Handle: "R-box", Agent: Claude, Argv: []string{"claude", "--x=\"y\"\n"}}
	js, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		line    string
		want    pane
		wantErr bool
	}{
		{"running row", "ws-a\t0\t123\t\t\t1800000000\t" + string(js),
			pane{id: "ws-a", pid: 123, exitCode: -1, created: time.Unix(1800000000, 0), spec: spec, ours: true}, false},
		{"exited row", "ws-a\t1\t123\t7\t\t1800000000\t" + string(js),
			pane{id: "ws-a", dead: true, reaped: true, pid: 123, exitCode: 7, created: time.Unix(1800000000, 0), spec: spec, ours: true}, false},
		{"killed row", "ws-a\t1\t123\t\t9\t1800000000\t" + string(js),
			pane{id: "ws-a", dead: true, reaped: true, pid: 123, exitCode: -1, created: time.Unix(1800000000, 0), spec: spec, ours: true}, false},
		{"closed, not reaped yet", "ws-a\t1\t123\t\t\t1800000000\t" + string(js),
			pane{id: "ws-a", dead: true, pid: 123, exitCode: -1, created: time.Unix(1800000000, 0), spec: spec, ours: true}, false},
		{"foreign session", "mine\t0\t9\t\t\t1800000000\t",
			pane{id: "mine", pid: 9, exitCode: -1, created: time.Unix(1800000000, 0)}, false},
		{"spec of another session", "copy\t0\t9\t\t\t1800000000\t" + string(js),
			pane{id: "copy", pid: 9, exitCode: -1, created: time.Unix(1800000000, 0), spec: spec}, false},
		{"short line", "ws-a\t0", pane{}, true},
		{"broken spec", "ws-a\t0\t1\t\t\t1\t{\"id\":", pane{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parsePane(tc.line)
			if (err != nil) != tc.wantErr {
				t.Fatalf("parsePane = %v, want error %v", err, tc.wantErr)
			}
			if err == nil && !paneEqual(got, tc.want) {
				t.Errorf("parsePane = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func paneEqual(a, b pane) bool {
	ja, _ := json.Marshal(a.spec)
	jb, _ := json.Marshal(b.spec)
	return a.id == b.id && a.dead == b.dead && a.reaped == b.reaped && a.pid == b.pid && a.exitCode == b.exitCode &&
		a.created.Equal(b.created) && a.ours == b.ours && string(ja) == string(jb)
}

// capture is what tmux prints for the Screen call: the geometry line, then
// capture-pane -e's lines, each ended by a bare LF.
func capture(head string, lines ...string) []byte {
	return []byte(head + "\n" + strings.Join(lines, "\n") + "\n")
}

// A plain capture (Text) is read as text: widths as FromText measures them,
// a line wider than the pane cut, no emulator.
func TestParseCapturePlain(t *testing.T) {
	s, ours, err := parseCapture(capture("3 1 8 3 0 0", "❯\u00a0漢x", " Do you?", "0123456789"), false)
	if err != nil || ours {
		t.Fatalf("parseCapture = %v, ours=%v; want a screen of a session that is no row", err, ours)
	}
	if s.Cols != 8 || s.Rows != 3 || s.CursorRow != 1 || s.CursorCol != 3 {
		t.Fatalf("geometry %dx%d cursor %d,%d, want 8x3 cursor 1,3", s.Cols, s.Rows, s.CursorRow, s.CursorCol)
	}
	for r, want := range []string{"❯\u00a0漢x   ", " Do you?", "01234567"} {
		if got := s.Line(r); got != want {
			t.Errorf("line %d = %q, want %q", r, got, want)
		}
	}
}

func TestParseCapture(t *testing.T) {
	rule := strings.Repeat("─", 10)
	s, ours, err := parseCapture(capture("2 2 10 6 1 0",
		"top \x1b[2mdim",     // dim runs on into the next line, as tmux captures it
		"still\x1b[0m pl",    //
		rule,                 // a full-width line must not wrap into the next
		"❯\u00a0漢x",          //
		"0123456789AB",       // wider than the pane: cut, not wrapped
		"\x1b[1mbold\x1b[0m", //
	), true)
	if err != nil || !ours {
		t.Fatalf("parseCapture = %v, ours=%v", err, ours)
	}
	if s.Cols != 10 || s.Rows != 6 || s.CursorRow != 2 || s.CursorCol != 2 {
		t.Fatalf("geometry %dx%d cursor %d,%d, want 10x6 cursor 2,2", s.Cols, s.Rows, s.CursorRow, s.CursorCol)
	}
	for r, want := range []string{"top dim   ", "still pl  ", rule, "❯\u00a0漢x     ", "012345678B", "bold      "} {
		if got := s.Line(r); got != want {
			t.Errorf("line %d = %q, want %q", r, got, want)
		}
	}
	dim := func(r, c int) bool { return s.Lines[r][c].Dim }
	if dim(0, 0) || !dim(0, 4) || !dim(1, 0) || dim(1, 6) || dim(5, 0) {
		t.Errorf("dim cells wrong: %v %v %v %v %v", dim(0, 0), dim(0, 4), dim(1, 0), dim(1, 6), dim(5, 0))
	}
	if c := s.Lines[3][2]; c != (screen.Cell{Text: "漢", Width: 2}) {
		t.Errorf("wide cell %+v", c)
	}
	if c := s.Lines[3][3]; c != (screen.Cell{Text: "", Width: 0}) {
		t.Errorf("wide cell's second column %+v", c)
	}
}

// A pane whose agent is dead and reaped is captured from one line of history
// up to tmux's dead line, which is dropped: the agent's last screen.
func TestParseCaptureDeadPane(t *testing.T) {
	for _, attrs := range []bool{false, true} {
		top := "FATAL: no key"
		if attrs {
			top = "\x1b[2mFATAL\x1b[0m: no key"
		}
		s, _, err := parseCapture(capture("0 2 20 3 1 1", top, "", "", "Pane is dead (status"), attrs)
		if err != nil {
			t.Fatal(err)
		}
		for r, want := range []string{"FATAL: no key", "", ""} {
			if got := strings.TrimRight(s.Line(r), " "); got != want {
				t.Errorf("attrs %v: line %d = %q, want %q", attrs, r, got, want)
			}
		}
	}
}

func TestParseCaptureRefusesBadGeometry(t *testing.T) {
	for _, head := range []string{"", "1 2 x 4 1", "0 0 0 5 1", "0 0 10 -1 1", "0 0 10 5 1", fmt.Sprintf("0 0 %d 5 1 0", maxCells+1)} {
		if _, _, err := parseCapture(capture(head, "a"), true); err == nil {
			t.Errorf("parseCapture took geometry %q", head)
		}
	}
}

func FuzzParseCapture(f *testing.F) {
	f.Add([]byte("0 0 4 2 1 0\nab\ncd\n"))
	f.Add([]byte("3 1 5 3 1 1\n\x1b[2mx\x1b[22m\n漢字漢字漢字\n\n\n\n"))
	f.Add([]byte("9 9 2 2 0 0\n\x1b[38;5;1m\x1b]8;;x\x07y\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, _, err := parseCapture(b, true)
		if err != nil {
			return
		}
		if len(s.Lines) != s.Rows {
			t.Fatalf("%d lines for %d rows", len(s.Lines), s.Rows)
		}
		for r, line := range s.Lines {
			if len(line) != s.Cols {
				t.Fatalf("line %d has %d cells for %d columns", r, len(line), s.Cols)
			}
		}
	})
}
