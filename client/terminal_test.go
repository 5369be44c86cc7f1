package client

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrintable(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, wantMulti string
	}{
		{"plain", "hello wörld, 漢字 \\x1b as typed", "hello wörld, 漢字 \\x1b as typed", ""},
		{"tab", "a\tb", "a\tb", ""},
		{"newline", "a\nb", `a\x0ab`, "a\nb"},
		{"CR", "a\rb", `a\x0db`, ""},
		{"OSC title", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`, ""},
		{"NUL and BS", "\x00\b", `\x00\x08`, ""},
		{"DEL", "a\x7f", `a\x7f`, ""},
		{"C1 CSI", "a\u009b2J", `a\x9b2J`, ""},
		{"just past C1", "\u00a0é", "\u00a0é", ""},
		{"not UTF-8", "a\x9b\xffb", `a\x9b\xffb`, ""},
		{"bidi override", "@bob\u202e)em( ecila@", `@bob\u202e)em( ecila@`, ""},
		{"bidi embeddings and isolates", "\u202a\u202d\u2066\u2069", `\u202a\u202d\u2066\u2069`, ""},
		{"zero width", "al\u200bice\u200f\ufeff", `al\u200bice\u200f\ufeff`, ""},
		{"just past zero width", "\u200a\u2010\u2065\u206a", "\u200a\u2010\u2065\u206a", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := printable(tc.in, false); got != tc.want {
				t.Errorf("printable(%q) = %q, want %q", tc.in, got, tc.want)
			}
			multi := tc.wantMulti
			if multi == "" {
				multi = tc.want
			}
			if got := printable(tc.in, true); got != multi {
				t.Errorf("printable(%q, keepNewlines) = %q, want %q", tc.in, got, multi)
			}
		})
	}
}

func TestShowLine(t *testing.T) {
	for _, tc := range []struct {
		name, line, want string
	}{
		{"one line", `{"from":"bob","to":"alice","msg":"hi","ts":"T"}`, "@bob (T): hi"},
		{"broadcast", `{"from":"bob","to":"","msg":"hi","ts":"T"}`, "@bob (T, broadcast): hi"},
		{"several lines", `{"from":"bob","to":"alice","msg":"a\n\n@mallory (T): b\n","ts":"T"}`, "@bob (T): \n  a\n\n  @mallory (T): b\n"},
		{"controls in the sender", `{"from":"b\u001b[2Job","to":"alice","msg":"hi","ts":"T\r"}`, `@b\x1b[2Job (T\x0d): hi`},
		{"not a frame", "{\"from\":\x1b[2J", `(unparsed line) {"from":\x1b[2J`},
		{"not UTF-8", "{\"from\":\"b\xffb\",\"to\":\"alice\",\"msg\":\"a\x9b\xe2\x82 \xc3\",\"ts\":\"T\"}", `@b\xffb (T): a\x9b\xe2\x82 \xc3`},
		{"escapes beside bytes that are not UTF-8", `{"from":"bob","to":"alice","msg":"\u00e9\ud83d\ude00\t\"\\\/` + "\xff" + `\u001b\ud800!","ts":"T"}`, "@bob (T): é😀\t\"\\/\\xff\\x1b\ufffd!"},
		{"a field that is no string", `{"from":"bob","to":"alice","msg":7,"ts":"T"}`, `(unparsed line) {"from":"bob","to":"alice","msg":7,"ts":"T"}`},
		{"its short id", `{"from":"bob","to":"alice","msg":"hi","ts":"T","id":"01KBQ3Z5X8M2N4P6R7S9T0VWXY"}`, "@bob (T, id S9T0VWXY): hi"},
		{"a reply", `{"from":"bob","to":"","msg":"hi","ts":"T","id":"01KBQ3Z5X8M2N4P6R7S9T0VWXY","in_reply_to":"01KBQ3Z5X8M2N4P6R7AAAAAAAA"}`, "@bob (T, broadcast, id S9T0VWXY, re AAAAAAAA): hi"},
		{"another client's id, with a control", `{"from":"bob","to":"alice","msg":"hi","ts":"T","id":"x\u001b"}`, `@bob (T, id x\x1b): hi`},
		{"an id that is no string is none", `{"from":"bob","to":"alice","msg":"hi","ts":"T","id":7,"in_reply_to":null}`, "@bob (T): hi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := showLine([]byte(tc.line)); got != tc.want {
				t.Errorf("showLine(%s) = %q, want %q", tc.line, got, tc.want)
			}
		})
	}
}

// Whatever a body holds, poll's rendering of it sends the terminal no control
// character but tab and newline, and every line after the header is indented.
func FuzzShowLine(f *testing.F) {
	f.Add("hi")
	f.Add("a\n@x (T): b")
	f.Add("\x1b]0;t\x07\r\u009b\x7f\xff")
	f.Add("\u202e\u200b\ufeff")
	f.Fuzz(func(t *testing.T, msg string) {
		line, err := json.Marshal(map[string]string{"from": "bob", "to": "alice", "msg": msg, "ts": "T"})
		if err != nil {
			t.Fatal(err)
		}
		got := showLine(line)
		if !utf8.ValidString(got) {
			t.Fatalf("%q is not UTF-8", got)
		}
		for i, r := range got {
			if r != '\n' && r != '\t' && isControl(r, false) || invisible(r) {
				t.Fatalf("control %U at byte %d of %q", r, i, got)
			}
		}
		for i, l := range strings.Split(got, "\n")[1:] {
			if l != "" && !strings.HasPrefix(l, "  ") {
				t.Fatalf("line %d of %q is not indented", i+1, got)
			}
		}
	})
}
