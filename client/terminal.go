package client

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// printable is s as shown on a person's terminal. Words that come from someone
// else (a message's sender and body, a refusal a remote box wrote, another
// box's list entry, a receipt) are shown, never obeyed: a terminal reads ESC,
// CSI and OSC sequences as commands (move the cursor, set the window title,
// rewrite a line), a CR returns over a line already printed and a BS erases.
// So each control character is printed as \x and its two hex digits: C0
// (U+0000–U+001F) but the tab, and the newline when keepNewlines is set, DEL
// (U+007F) and C1 (U+0080–U+009F), and each byte that is not UTF-8 likewise.
// Nor may text pass for other text: a bidi override or isolate turns the rest
// of a line around (a handle reads as another), and a zero-width character
// hides in a name, so those (invisible) are printed as \u and four hex digits.
// Text with none of them is returned as it is. The escapes are for reading:
// --json prints an inbox line byte for byte.
func printable(s string, keepNewlines bool) string {
	var b strings.Builder
	done := 0 // s[:done] is in b
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		bad := r == utf8.RuneError && n == 1
		if !bad && !isControl(r, keepNewlines) && !invisible(r) {
			i += n
			continue
		}
		b.WriteString(s[done:i])
		switch {
		case bad:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r > 0xff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\x%02x`, r)
		}
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

// invisible reports the characters that change how the text around them reads
// without showing: zero-width spaces and joiners and the marks LRM and RLM
// (U+200B–U+200F), bidi embeddings and overrides (U+202A–U+202E), bidi
// isolates (U+2066–U+2069) and the zero-width no-break space (U+FEFF).
func invisible(r rune) bool {
	return r >= 0x200b && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0xfeff
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
