package wire

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// loneSurrogate returns the first \u escape in b that is half of a UTF-16
// surrogate pair standing alone: a high one (\uD800–\uDBFF) not followed at
// once by an escaped low one (\uDC00–\uDFFF), or a low one with no high one
// before it. encoding/json reads such an escape as U+FFFD. b must be valid
// JSON, so every backslash is an escape inside a string and every \u has its
// four hex digits.
func loneSurrogate(b []byte) (string, bool) {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\\')
		if j < 0 {
			return "", false
		}
		i += j
		if b[i+1] != 'u' {
			i += 2 // \\, \" and the one-letter escapes
			continue
		}
		switch r := hex4(b[i+2:]); {
		case isLow(r):
			return string(b[i : i+6]), true
		case r >= 0xD800 && r <= 0xDBFF:
			if !bytes.HasPrefix(b[i+6:], []byte(`\u`)) || !isLow(hex4(b[i+8:])) {
				return string(b[i : i+6]), true
			}
			i += 12
		default:
			i += 6
		}
	}
}

func isLow(r rune) bool { return r >= 0xDC00 && r <= 0xDFFF }

// hex4 is the value of b's first four hex digits.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// checkText refuses valid JSON (what names it: the frame, the payload) that is
// not text (NotText), as a bad frame.
func checkText(b []byte, what string) error {
	if err := NotText(b, what); err != nil {
		return fmt.Errorf("%w: %w", ErrFrame, err)
	}
	return nil
}

// NotText says why valid JSON b (what names it) is not text, nil when it is:
// bytes that are not UTF-8, or an escaped lone surrogate. Either would reach
// its reader as U+FFFD, and the protocol refuses text, never replaces it.
func NotText(b []byte, what string) error {
	if !utf8.Valid(b) {
		return fmt.Errorf("%s is not valid UTF-8", what)
	}
	if esc, ok := loneSurrogate(b); ok {
		return fmt.Errorf("%s holds an escaped lone surrogate (%s), which is not text; nothing in it was done — send text as UTF-8 or as a surrogate pair", what, esc)
	}
	return nil
}
