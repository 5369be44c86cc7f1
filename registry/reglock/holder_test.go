package reglock

import (
	"testing"
)

func TestParseHolder(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Holder
		ok   bool
	}{
		{"linux", "vm:3d12:614d:4026531836:4242:8812", Holder{"vm", "3d12", "614d", "4026531836", 4242, "8812"}, true},
		{"proofless", "mac:-:-:-:77:-", Holder{"mac", "-", "-", "-", 77, "-"}, true},
		{"space in the pid", ":::: 1:", Holder{}, false},
		{"empty proof fields", "h::::5:", Holder{"h", "-", "-", "-", 5, "-"}, true},
		{"leading zeros", "h:m:b:n:007:s", Holder{"h", "m", "b", "n", 7, "s"}, true},
		{"five fields", "h:m:b:n:5", Holder{}, false},
		{"seven fields", "h:m:b:n:5:s:x", Holder{}, false},
		{"signed pid", "h:m:b:n:-5:s", Holder{}, false},
		{"no pid", "h:m:b:n::s", Holder{}, false},
		{"pid past int", "h:m:b:n:99999999999999999999999:s", Holder{}, false},
		{"carriage return", "h:m:b:n:5:s\r", Holder{}, false},
		{"empty", "", Holder{}, false},
		{"older version's text", "12345", Holder{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseHolder(tt.line)
			if ok != tt.ok || got != tt.want {
				t.Fatalf("ParseHolder(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestHolderString(t *testing.T) {
	tests := []struct {
		name string
		h    Holder
		want string
	}{
		{"whole", Holder{"vm", "m", "b", "n", 12, "34"}, "vm:m:b:n:12:34"},
		{"empty fields are unknown", Holder{Name: "vm", PID: 3}, "vm:-:-:-:3:-"},
		{"colon and newline cannot split the record", Holder{"a:b", "m\nx", "b", "n", 1, "s\r"}, "a_b:m_x:b:n:1:s_"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.h.String(); got != tt.want {
				t.Fatalf("String() = %q, want %q", got, tt.want)
			}
			if back, ok := ParseHolder(tt.h.String()); !ok {
				t.Fatalf("%q does not parse back", tt.h.String())
			} else if back.String() != tt.want {
				t.Fatalf("round trip %q -> %q", tt.want, back.String())
			}
		})
	}
}

func TestHostField(t *testing.T) {
	for in, want := range map[string]string{"vm": "vm", "My Box:1": "My_Box_1", "": "-", "a/b": "a_b", "ü": "__"} {
		if got := hostField(in); got != want {
			t.Errorf("hostField(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParseHolder: whatever parses formats back to a line that parses to the
// same holder.
func FuzzParseHolder(f *testing.F) {
	for _, s := range []string{"vm:3d12:614d:4026531836:4242:8812", "mac:-:-:-:77:-", "h::::5:", ":::::", "a:b:c:d:1:e:f", "x:y:z:w:0012:\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		h, ok := ParseHolder(line)
		if !ok {
			return
		}
		back, ok := ParseHolder(h.String())
		if !ok || back != h {
			t.Fatalf("%q parsed to %+v, formatted to %q, parsed back to %+v, %v", line, h, h.String(), back, ok)
		}
	})
}
