package wake

import (
	"strings"
	"testing"

	"github.com/sotcomm/sotd/screen"
)

func TestDialog(t *testing.T) {
	const rule = "────────────────────────────────────────"
	permission := []string{
		"● Bash(rm -rf build)",
		rule,
		" Bash command",
		"",
		"   rm -rf build",
		"   Remove the build output",
		"",
		" Do you want to proceed?",
		" ❯ 1. Yes",
		"   2. Yes, and don't ask again for rm commands in /home/u/proj",
		"   3. No, and tell Claude what to do differently (esc)",
	}
	for _, tc := range []struct {
		name    string
		lines   []string
		windows bool
		want    string
	}{
		{"a permission dialog", permission, false, "Do you want to proceed?"},
		{"an edit dialog, the question a row up with a blank between", []string{
			" Do you want to make this edit to cursor.go?", "", " ❯ 1. Yes", "   2. Yes, allow all edits during this session", "   3. No"}, false, "Do you want to make this edit to cursor.go?"},
		{"a question the agent asks", []string{"Which schema should the registry use?", "❯ 1. v1", "  2. v2"}, false, "Which schema should the registry use?"},
		{"Windows draws > for the selection", []string{" Do you want to proceed?", " > 1. Yes", "   2. No"}, true, "Do you want to proceed?"},
		{"> is no selection off Windows", []string{" Do you want to proceed?", " > 1. Yes", "   2. No"}, false, ""},
		{"a long question is cut", []string{"Do you want to " + strings.Repeat("x", 100) + "?", "❯ 1. Yes", "  2. No"}, false, "Do you want to " + strings.Repeat("x", 64) + "…"},
		{"the free prompt", []string{rule, "❯\u00a0", rule, "  ? for shortcuts"}, false, ""},
		{"a numbered draft in the box", []string{"Should I?", rule, "❯\u00a01. fix the tests", rule, "  2. later"}, false, ""},
		{"a list with no question above", []string{"Here is the plan:", "❯ 1. read", "  2. write"}, false, ""},
		{"a question too far above", []string{"Ready?", "", "", "❯ 1. Yes", "  2. No"}, false, ""},
		{"option 1 without option 2", []string{"Proceed?", "❯ 1. Yes", "", "done"}, false, ""},
		{"option 1 on the last row", []string{"Proceed?", "❯ 1. Yes"}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := screen.FromText(tc.lines, 120, len(tc.lines)+2, 0, 0)
			got, ok := Dialog(s, tc.windows)
			if ok != (tc.want != "") || got != tc.want {
				t.Fatalf("Dialog = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
	if _, ok := Dialog(nil, false); ok {
		t.Error("a nil screen shows a dialog")
	}
}
