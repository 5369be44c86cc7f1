package registry

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
)

// A declaration's text past MaxText is refused and changes nothing; an
// event's (a hook's dialog) is kept, its summary cut to MaxText on a rune
// boundary.
func TestStatusTextIsBounded(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	var e Entry
	if err := Apply(&e, Status{Verb: VerbIdle, Text: "lunch", HasText: true}, now); err != nil {
		t.Fatal(err)
	}
	before := e
	err := Apply(&e, Status{Verb: VerbWorking, Text: strings.Repeat("x", MaxText+1), HasText: true}, now)
	if err == nil || !strings.Contains(err.Error(), "513 bytes, over the 512-byte limit") {
		t.Fatalf("a %d-byte note: %v; want refused, naming the limit", MaxText+1, err)
	}
	if e.Note != before.Note || e.Summary != before.Summary {
		t.Errorf("the refused note changed the entry: %+v", e)
	}
	if err := Apply(&e, Status{Verb: VerbIdle, Text: strings.Repeat("x", MaxText), HasText: true}, now); err != nil {
		t.Errorf("a %d-byte note: %v; want taken", MaxText, err)
	}
	dialog := strings.Repeat("é", MaxText) // 2 bytes each
	if err := Apply(&e, Status{Verb: VerbDialog, Text: dialog, HasText: true}, now); err != nil {
		t.Fatalf("a long dialog: %v; want taken", err)
	}
	if e.Dialog != dialog || len(e.Summary) != MaxText || !utf8.ValidString(e.Summary) {
		t.Errorf("a long dialog left dialog %d bytes, summary %d bytes (valid UTF-8 %v); want the dialog whole and the summary %d", len(e.Dialog), len(e.Summary), utf8.ValidString(e.Summary), MaxText)
	}
}

func TestCheckExpertise(t *testing.T) {
	for _, tc := range []struct {
		name  string
		words []string
		want  string
	}{
		{"none", nil, ""},
		{"at the bounds", append(make([]string, MaxExpertise-1), strings.Repeat("w", MaxText)), ""},
		{"too many words", make([]string, MaxExpertise+1), "33 words, over the 32 allowed"},
		{"too many bytes", []string{strings.Repeat("w", MaxText), "x"}, "513 bytes, over the 512-byte limit"},
	} {
		err := CheckExpertise(tc.words)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
}
