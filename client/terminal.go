package client

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// printable is s as shown on a person's terminal. Words that come from someone
// else (a message's sender and body, a refusal a remote box wrote) are shown,
// never obeyed: a terminal reads ESC, CSI and OSC sequences as commands (move
// the cursor, set the window title, rewrite a line), a CR returns over a line
// already printed and a BS erases. So each control character is printed as \x
// and its two hex digits: C0 (U+0000–U+001F) but the tab, and the newline when
// keepNewlines is set, DEL (U+007F) and C1 (U+0080–U+009F), and each byte that
// is not UTF-8 likewise. Text with none of them is returned as it is. The escapes are
// for reading: --json prints an inbox line byte for byte.
func printable(s string, keepNewlines bool) string {
	var b strings.Builder
	done := 0 // s[:done] is in b
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !(r == utf8.RuneError && n == 1) && !isControl(r, keepNewlines) {
			i += n
			continue
		}
		b.WriteString(s[done:i])
		if r == utf8.RuneError {
			r = rune(s[i])
		}
		fmt.Fprintf(&b, `\x%02x`, r)
		i += n
		done = i
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

func isControl(r rune, keepNewlines bool) bool {
	switch {
	case r == '\t', r == '\n' && keepNewlines:
		return false
	case r < 0x20, r == 0x7f:
		return true
	}
	return r >= 0x80 && r <= 0x9f
}

// bodyLines shows a multi-line body under its header, every line indented, so
// no line of it can pass for a header or another line of sotd's own: those
// all start at the line's first column.
func bodyLines(body string) string {
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return "\n" + strings.Join(lines, "\n")
}
