package ancestry

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitCommandLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		// The argument rows of Microsoft's "Parsing C command-line arguments" table.
		{`p "a b c" d e`, []string{"p", "a b c", "d", "e"}},
		{`p "ab\"c" "\\" d`, []string{"p", `ab"c`, `\`, "d"}},
		{`p a\\\b d"e f"g h`, []string{"p", `a\\\b`, "de fg", "h"}},
		{`p a\\\"b c d`, []string{"p", `a\"b`, "c", "d"}},
		{`p a\\\\"b c" d e`, []string{"p", `a\\b c`, "d", "e"}},
		{`p a"b"" c d`, []string{"p", `ab" c d`}},
		// The program name: quotes dropped, backslashes never escape.
		{`"C:\Program Files\nodejs\node.exe" C:\x\cli.js -p`, []string{`C:\Program Files\nodejs\node.exe`, `C:\x\cli.js`, "-p"}},
		{`C:\x\"y z"\w.exe a`, []string{`C:\x\y z\w.exe`, "a"}},
		{`"a b"c d`, []string{"a bc", "d"}},
		{`claude.exe`, []string{"claude.exe"}},
		{``, []string{""}},
		// Blanks, empty arguments, an unclosed quote, trailing backslashes.
		{"p \t a\t\tb  ", []string{"p", "a", "b"}},
		{`p "" ""`, []string{"p", "", ""}},
		{`p "a b`, []string{"p", "a b"}},
		{`p a\\`, []string{"p", `a\\`}},
		{`p "a\\"`, []string{"p", `a\`}},
		{`p """"`, []string{"p", `"`}},
	} {
		if got := splitCommandLine(tc.line); !slices.Equal(got, tc.want) {
			t.Errorf("splitCommandLine(%s) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

// quoteArg quotes s so that the C runtime reads it back whole: the rule
// Windows programs (Go's os/exec among them) build command lines by.
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, slashes+1))
			slashes = 0
		default:
			slashes = 0
		}
		b.WriteByte(s[i])
	}
	b.WriteString(strings.Repeat(`\`, slashes))
	b.WriteByte('"')
	return b.String()
}

func FuzzSplitCommandLine(f *testing.F) {
	for _, seed := range [][2]string{
		{"a b", `c"d`}, {`a\`, `\\"`}, {"", "\t"}, {`"`, `""`}, {`x\y\"`, " "},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		args := []string{`C:\Program Files\node.exe`, a, b}
		line := `"` + args[0] + `" ` + quoteArg(a) + " " + quoteArg(b)
		if got := splitCommandLine(line); !slices.Equal(got, args) {
			t.Fatalf("split(%s) = %q, want %q", line, got, args)
		}
		// Any line at all splits into at least the program name.
		if got := splitCommandLine(a + b); len(got) == 0 {
			t.Fatalf("split(%q) gave no program name", a+b)
		}
	})
}
