package registry

import (
	"fmt"
	"strings"
)

// Bounds on what a session says of itself. Its summary and expertise go with
// its handle into every box's list: its box publishes them to the hub in view
// events that must each fit one frame, and the hub keeps no more of them
// (hub.View clips to the same bounds). The protocol names no limit; these are
// far past a glance's line.
const (
	// MaxText bounds, in bytes, a status text (a note, question or wait, which
	// becomes the summary) and so the summary itself.
	MaxText = 512
	// MaxExpertise bounds the expertise words; they take at most MaxText bytes
	// in all.
	MaxExpertise = 32
)

// CheckText refuses a declaration's text past MaxText.
func CheckText(text string) error {
	if len(text) > MaxText {
		return fmt.Errorf("the status text is %d bytes, over the %d-byte limit of a summary; say it in fewer words", len(text), MaxText)
	}
	return nil
}

// CheckExpertise refuses more than MaxExpertise words, or words past MaxText
// bytes in all.
func CheckExpertise(words []string) error {
	if len(words) > MaxExpertise {
		return fmt.Errorf("the expertise has %d words, over the %d allowed", len(words), MaxExpertise)
	}
	if n := len(strings.Join(words, "")); n > MaxText {
		return fmt.Errorf("the expertise is %d bytes, over the %d-byte limit", n, MaxText)
	}
	return nil
}

// Cut is s cut to at most max bytes, backed off to a rune boundary so it stays
// valid UTF-8 when s is.
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
