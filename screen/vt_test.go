package screen

import (
	"testing"

	"github.com/charmbracelet/x/vt"
)

// A screen read from text must put every grapheme where the built-in terminal
// (charmbracelet/x/vt) draws it, with the same width, or a saved screen would
// not check as the live one does.
func TestFromTextAgreesWithTheTerminal(t *testing.T) {
	lines := []string{
		"❯\u00a0[sot-comm] you have mail",
		"修复游标测试 👍🏽 ✅ done",
		"e\u0301 café ñ · ⏵⏵ ⎿ ✻ ● ◯ ─",
		"👨\u200d👩\u200d👧 family 🇫🇷 flag ☺\ufe0f",
		"ｆｕｌｌｗｉｄｔｈ ＡＢＣ",
	}
	const cols = 40
	for _, line := range lines {
		t.Run(line, func(t *testing.T) {
			e := vt.NewEmulator(cols, 1)
			if _, err := e.WriteString(line); err != nil {
				t.Fatal(err)
			}
			got := FromText([]string{line}, cols, 1, 0, 0).Lines[0]
			for x := range cols {
				c := e.CellAt(x, 0)
				text, width := " ", 1
				if c != nil && (c.Content != "" || c.Width != 0) {
					text, width = c.Content, c.Width
				} else if c != nil {
					text, width = "", 0
				}
				if got[x].Text != text || got[x].Width != width {
					t.Errorf("column %d: FromText has %q (width %d), the terminal %q (width %d)", x, got[x].Text, got[x].Width, text, width)
				}
			}
		})
	}
}
