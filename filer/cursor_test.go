package filer

import (
	"strings"
	"testing"
)

func TestParseCursor(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Cursor
		bad  bool
	}{
		{"count and hash", "12 3015617425-6\n", Cursor{Count: 12, Hash: "3015617425-6"}, false},
		{"leading zeros are canonicalised", "007 0042-010", Cursor{Count: 7, Hash: "42-10"}, false},
		{"count only", "5", Cursor{Count: 5}, false},
		{"zero", "0", Cursor{}, false},
		{"legacy stamp", "2026-05-29T18:04:00Z\n", Cursor{Stamp: "2026-05-29T18:04:00Z"}, false},
		{"legacy stamp with a fraction", "2026-05-29T18:04:00.25Z", Cursor{Stamp: "2026-05-29T18:04:00.25Z"}, false},
		{"stamp not in UTC", "2026-05-29T18:04:00+02:00", Cursor{}, true},
		{"negative count", "-1", Cursor{}, true},
		{"signed count", "+1", Cursor{}, true},
		{"crc past 32 bits", "3 4294967296-5", Cursor{}, true},
		{"hash without length", "3 42", Cursor{}, true},
		{"hash with a sign", "3 42--5", Cursor{}, true},
		{"three fields", "3 42-5 x", Cursor{}, true},
		{"count too big", "99999999999999999999999", Cursor{}, true},
		{"words", "hello", Cursor{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCursor(tt.in)
			if tt.bad {
				if err == nil {
					t.Fatalf("ParseCursor(%q) = %+v, want an error", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseCursor(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
		})
	}
}

// Whatever parses writes back as a cursor that parses to the same thing, and
// nothing makes the parser panic.
func FuzzParseCursor(f *testing.F) {
	for _, s := range []string{"12 3015617425-6", "5", "2026-05-29T18:04:00Z", "", " 1 2-3 ", "0 0-0", "1 -", "2026-13-40T99:99:99Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCursor(s)
		if err != nil {
			if !strings.Contains(err.Error(), "not a read cursor") {
				t.Fatalf("unexpected error text %q", err)
			}
			return
		}
		again, err := ParseCursor(c.String())
		if err != nil || again != c {
			t.Fatalf("%q parsed to %+v, which writes %q and reads back as %+v, %v", s, c, c.String(), again, err)
		}
		if c.Count < 0 {
			t.Fatalf("%q parsed to a negative count", s)
		}
	})
}
