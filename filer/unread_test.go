package filer

import (
	"strings"
	"testing"
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
