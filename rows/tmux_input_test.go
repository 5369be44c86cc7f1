package rows

import (
	"reflect"
	"testing"
)

func TestSendKeys(t *testing.T) {
	lit := func(s string) []string { return []string{"send-keys", "-t", "=ws-a:", "-l", "--", s} }
	enter := []string{"send-keys", "-t", "=ws-a:", "Enter"}
	hex := func(h string) []string { return []string{"send-keys", "-t", "=ws-a:", "-H", h} }
	for _, tc := range []struct {
		name string
		in   string
		want [][]string
	}{
		{"text", "hello wörld", [][]string{lit("hello wörld")}},
		{"notice then enter", "[sot-comm] you have mail\r", [][]string{lit("[sot-comm] you have mail"), enter}},
		{"enter alone", "\r", [][]string{enter}},
		{"trailing semicolon", "a;", [][]string{lit("a;")}},
		{"semicolon alone", ";", [][]string{lit(";")}},
		{"inner semicolon", "a;b", [][]string{lit("a;b")}},
		{"key names stay text", "Escape C-c", [][]string{lit("Escape C-c")}},
		{"leading dash", "-x", [][]string{lit("-x")}},
		{"control bytes", "a\x1b\tb\x7f", [][]string{lit("a"), hex("1b"), hex("09"), lit("b"), hex("7f")}},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sendKeys("ws-a", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("sendKeys(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	if _, err := sendKeys("ws-a", []byte{'a', 0xff}); err == nil {
		t.Error("sendKeys took bytes that are not UTF-8")
	}
}

func TestSeq(t *testing.T) {
	got := seq([]string{"a", "1"}, []string{"b"}, []string{"c", "2;", ";", `x\;`, "a;b"})
	want := []string{"a", "1", ";", "b", ";", "c", `2\;`, `\;`, `x\\;`, "a;b"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("seq = %q, want %q", got, want)
	}
}
