package filer

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sotcomm/sotd/home"
)

func TestIsUnread(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name string
		line string
		want bool
	}{
		{"directed mail", `{"from":"peer","to":"me","repo":"r","msg":"hi","ts":"t"}`, true},
		{"with an id", `{"from":"peer","to":"me","msg":"hi","id":"01J"}`, true},
		{"broadcast copy", `{"from":"peer","to":"","msg":"hi"}`, false},
		{"another handle's", `{"from":"peer","to":"you","msg":"hi"}`, false},
		{"from this handle", `{"from":"me","to":"me","msg":"note to self"}`, false},
		{"to missing", `{"from":"peer","msg":"hi"}`, false},
		{"to not a string", `{"from":"peer","to":["me"],"msg":"hi"}`, false},
		{"from missing", `{"to":"me","msg":"hi"}`, false},
		{"from not a string", `{"from":null,"to":"me"}`, false},
		{"not an object", `["me"]`, false},
		{"null", `null`, false},
		{"not JSON", `to me`, false},
		{"trailing garbage", `{"from":"peer","to":"me"} x`, false},
		{"byte-order mark", "\ufeff" + `{"from":"peer","to":"me"}`, false},
		{"invalid UTF-8", "{\"from\":\"peer\",\"to\":\"me\",\"msg\":\"\xff\"}", false},
		{"NaN", `{"from":"peer","to":"me","n":NaN}`, false},
		{"number out of range", `{"from":"peer","to":"me","n":1e400}`, false},
		{"nesting at 127", `{"from":"peer","to":"me","n":` + deep(126) + `}`, true},
		{"nesting past 127", `{"from":"peer","to":"me","n":` + deep(127) + `}`, false},
		{"brackets inside a string do not nest", `{"from":"peer","to":"me","msg":"` + strings.Repeat("[", 200) + `"}`, true},
		{"escaped quote in a string", `{"from":"peer","to":"me","msg":"say \"[[\" ok"}`, true},
		{"handle in escaped form", `{"from":"peer","to":"\u006de"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsUnread([]byte(tt.line), "me"); got != tt.want {
				t.Fatalf("IsUnread(%.60q) = %v, want %v", tt.line, got, tt.want)
			}
		})
	}
}

// Unread counts by that rule past the cursor and never moves the cursor.
func TestUnread(t *testing.T) {
	f, _ := newTestFiler(t)
	h := "me"
	if _, err := f.Append(h, []Line{line("peer", h, "one", ""), line("peer", "", "broadcast", ""), line(h, h, "self", "")}); err != nil {
		t.Fatal(err)
	}
	b, err := f.ReadNew(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(h, b); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Append(h, []Line{line("peer", h, "two", ""), line("other", h, "three", ""), line("peer", "", "all", "")}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		n, err := f.Unread(h)
		if err != nil || n != 2 {
			t.Fatalf("Unread = %d, %v; want 2 (the directed lines past the cursor)", n, err)
		}
	}
}

// Recount agrees with Unread at every step, and goes on from its last count
// only while the inbox has only grown under the same cursor: a poll that moves
// the cursor, a cut-back refilled to the same length, a cursor rewritten in the
// legacy stamp form and a garbled one all count afresh.
func TestRecount(t *testing.T) {
	f, _ := newTestFiler(t)
	h := "me"
	inbox := mustPath(t, f, home.Inbox, h)
	cursor := mustPath(t, f, home.Cursor, h)
	var tally Tally
	step := func(what string, wantContinued bool) {
		t.Helper()
		_, _, continued, err := f.read(h, &tally, func(int, []byte) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if continued != wantContinued {
			t.Errorf("%s: the count went on from the last one: %v, want %v", what, continued, wantContinued)
		}
		if tally, err = f.Recount(h, tally); err != nil {
			t.Fatal(err)
		}
		want, err := f.Unread(h)
		if err != nil {
			t.Fatal(err)
		}
		if tally.N != want {
			t.Fatalf("%s: Recount = %d, Unread = %d", what, tally.N, want)
		}
	}
	appendLines := func(ls ...Line) {
		t.Helper()
		if _, err := f.Append(h, ls); err != nil {
			t.Fatal(err)
		}
	}
	step("no inbox", false)
	appendLines(line("peer", h, "one", ""), line("peer", "", "broadcast", ""), line(h, h, "self", ""))
	step("the first lines", false)
	appendLines(line("peer", h, "two", ""), line("other", h, "three", ""))
	step("lines appended", true)
	step("nothing new", true)

	b, err := f.ReadNew(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(h, b); err != nil {
		t.Fatal(err)
	}
	appendLines(line("peer", h, "four", ""))
	step("a poll moved the cursor", false)
	appendLines(line("peer", h, "five", ""))
	step("a line after the poll", true)

	// A cut-back of the last line, refilled by one of the same length that
	// counts otherwise.
	raw := readFile(t, inbox)
	last := strings.LastIndex(strings.TrimSuffix(raw, "\n"), "\n") + 1
	refill := strings.Replace(raw[last:], `"to":"me"`, `"to":"mx"`, 1)
	if err := os.WriteFile(inbox, []byte(raw[:last]+refill), 0o600); err != nil {
		t.Fatal(err)
	}
	step("a cut-back refilled", false)
	appendLines(line("peer", h, "six", ""))
	step("a line after the refill", true)

	if err := os.WriteFile(cursor, []byte("2026-05-29T18:03:00Z\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	step("a stamp cursor", false)
	appendLines(line("peer", h, "seven", ""))
	step("a line after a stamp cursor", true)

	if err := os.Remove(cursor); err != nil {
		t.Fatal(err)
	}
	step("no cursor", false)
	appendLines(line("peer", h, "eight", ""))
	step("a line with no cursor", true)

	if err := os.WriteFile(cursor, []byte("garbled\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	step("a garbled cursor", false)
	appendLines(line("peer", h, "nine", ""))
	step("a line after a garbled cursor", false)
}

// isUnreadByMap is the unread rule as first written, a decode of the whole line
// into a map: the oracle IsUnread must agree with on every line.
func isUnreadByMap(line []byte, handle string) bool {
	if !utf8.Valid(line) || !shallow(line) {
		return false
	}
	var obj map[string]any
	if json.Unmarshal(line, &obj) != nil || obj == nil {
		return false
	}
	to, ok := obj["to"].(string)
	if !ok || to != handle {
		return false
	}
	from, ok := obj["from"].(string)
	return ok && from != handle
}

// FuzzIsUnread holds IsUnread to the map decode's reading of a line.
func FuzzIsUnread(f *testing.F) {
	for _, s := range []string{
		`{"from":"peer","to":"me","repo":"r","msg":"hi","ts":"t","id":"01J"}`,
		`{"to":"me","from":"peer","to":"you"}`, `{"to":"you","from":"peer","to":"me"}`,
		`{"from":"peer","TO":"me"}`, `{"from":"peer","t\u006f":"me"}`, `{"from":"p\"eer","to":"\u006de"}`,
		`{"from":"peer","to":"me","n":[1,-2.5e3,{"a":[true,false,null]}]}`, `{"from":"peer","to":"me","n":1e400}`,
		`{"from":"peer","to":"me","n":1e-400}`, `{"from":"peer","to":"\ud800"}`, ` {"from":"peer","to":"me"} `,
		`{"from":1,"to":"me"}`, `{"from":"peer","to":null}`, `{}`, `null`, `["me"]`, `"me"`, `{"from":"peer","to":"me"`,
		"{\"from\":\"peer\",\"to\":\"me\",\"msg\":\"\xff\"}", "\ufeff{\"from\":\"peer\",\"to\":\"me\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if got, want := IsUnread(line, "me"), isUnreadByMap(line, "me"); got != want {
			t.Fatalf("IsUnread(%q) = %v, the map decode says %v", line, got, want)
		}
	})
}

func BenchmarkIsUnread(b *testing.B) {
	l, err := line("peer", "me", strings.Repeat("a message of some length ", 8), "01J").Encode()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if !IsUnread(l, "me") {
			b.Fatal("not unread")
		}
	}
}
