package filer

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestEachBackHandsTheLinesTheForwardScanDoes: read back from the end, the
// lines and their offsets are the forward scanner's, in reverse; an
// unterminated last line is never handed, and a line longer than a chunk
// comes whole.
func TestEachBackHandsTheLinesTheForwardScanDoes(t *testing.T) {
	long := strings.Repeat("y", 2*backChunk+7)
	for _, tc := range []struct{ name, in string }{
		{"none", ""},
		{"only a partial line", "abc"},
		{"one line", "abc\n"},
		{"a partial last line", "a\nb\nhalf"},
		{"empty lines", "\n\na\n\n"},
		{"a long line among short", "a\n" + long + "\nb\n" + long + "\n"},
		{"a long partial line", "a\n" + long},
		{"a newline at a chunk's edge", strings.Repeat("z", backChunk-1) + "\n" + strings.Repeat("w", backChunk) + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			type got struct {
				start int64
				line  string
			}
			var want []got
			s := newLineScanner(strings.NewReader(tc.in))
			for s.next() {
				want = append(want, got{s.end - int64(len(s.line)) - 1, string(s.line)})
			}
			slices.Reverse(want)
			var back []got
			r := bytes.NewReader([]byte(tc.in))
			if err := eachBack(r, int64(len(tc.in)), func(start int64, line []byte) bool {
				back = append(back, got{start, string(line)})
				return true
			}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(back, want) {
				t.Errorf("eachBack handed %d lines, the forward scan %d; the first back: %d %.40q", len(back), len(want), back[0].start, back[0].line)
			}
			if len(want) > 1 {
				n := 0
				eachBack(r, int64(len(tc.in)), func(int64, []byte) bool { n++; return n < 2 })
				if n != 2 {
					t.Errorf("eachBack went on after visit said stop: %d lines", n)
				}
			}
		})
	}
}
