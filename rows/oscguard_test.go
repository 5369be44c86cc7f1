package rows

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/vt"
)

// A title with non-ASCII text, as Claude Code sets it at a turn's end, is
// not drawn on the PTY row's screen, also when a read ends inside it; the text
// around it is drawn as sent, and the bytes given are left as they were.
func TestOSCGuardKeepsTitlesOffTheScreen(t *testing.T) {
	for _, chunks := range [][]string{
		{"❯\u00a0\x1b]0;✳ Claude Code\a|"},
		{"❯\u00a0\x1b]0;✳ Cla", "ude Code\x1b\\|"},
		{"❯\u00a0\x1b", "]0;⠂ Claude Code", "\a|"},
		{"❯\u00a0\x1b]8;;https://example.com/ü\x1b\\link\x1b]8;;\x1b\\|"},
	} {
		e := vt.NewEmulator(40, 2)
		var g oscGuard
		for _, c := range chunks {
			in := []byte(c)
			e.Write(g.clean(in))
			if string(in) != c {
				t.Fatalf("clean changed its input %q to %q", c, in)
			}
		}
		line := strings.TrimRight(snapshot(e, 0, 0).Line(0), " ")
		want := "❯\u00a0|"
		if strings.Contains(strings.Join(chunks, ""), "link") {
			want = "❯\u00a0link|"
		}
		if line != want {
			t.Errorf("%q drew %q, want %q", strings.Join(chunks, ""), line, want)
		}
	}
}
