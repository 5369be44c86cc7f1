package registry

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestMark(t *testing.T) {
	h := newHome(t)
	writeRegistry(t, h, `{"protocol_version":1,"agents":{"a-box":{"host":"box","pane_id":"%2"},"odd":[1]}}`)
	now := time.Date(2026, 6, 15, 19, 32, 13, 0, time.UTC)

	if err := Mark(h, "a-box", TouchWait, func(e *Entry) error { e.StopAt = Stamp(now); return nil }); err != nil {
		t.Fatal(err)
	}
	e, _, err := Lookup(h, "a-box")
	if err != nil || e.StopAt != "2026-06-15T19:32:13Z" || string(e.Extra["pane_id"]) != `"%2"` {
		t.Fatalf("marked row %+v, %v", e, err)
	}

	tests := []struct {
		name string
		row  string
		set  func(*Entry) error
		want error
	}{
		{"absent row", "nobody", func(*Entry) error { return nil }, ErrNoRow},
		{"row that is not an object", "odd", func(*Entry) error { return nil }, ErrNoRow},
		{"set skips", "a-box", func(e *Entry) error { e.Host = "other"; return ErrSkip }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, fi := mustRead(t, h.Registry())
			err := Mark(h, tt.row, TouchWait, tt.set)
			if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Fatalf("Mark = %v, want %v", err, tt.want)
			}
			assertUnchanged(t, h.Registry(), b, fi)
		})
	}
}

func TestStopHookRunning(t *testing.T) {
	now := time.Date(2026, 6, 15, 19, 32, 13, 0, time.UTC)
	tests := []struct {
		name   string
		stopAt string
		want   bool
	}{
		{"none", "", false},
		{"just stamped", "2026-06-15T19:32:13Z", true},
		{"59 s old", "2026-06-15T19:31:14Z", true},
		{"a minute old", "2026-06-15T19:31:13Z", false},
		{"an hour old", "2026-06-15T18:32:13Z", false},
		{"30 s ahead (skew)", "2026-06-15T19:32:43Z", true},
		{"a minute ahead", "2026-06-15T19:33:13Z", false},
		{"fractional seconds", "2026-06-15T19:32:13.5Z", false},
		{"an offset", "2026-06-15T19:32:13+00:00", false},
		{"not a date", "soon", false},
		{"shape but no calendar day", "2026-13-40T19:32:13Z", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StopHookRunning(&Entry{StopAt: tt.stopAt}, now); got != tt.want {
				t.Errorf("StopHookRunning(stop_at %q) = %v, want %v", tt.stopAt, got, tt.want)
			}
		})
	}
	if StopHookRunning(nil, now) {
		t.Error("a missing row runs no Stop hook")
	}
}

// TestMarkInPlace: a mark rewrites its row alone, every other byte of the
// file as another client wrote it; a file with the name twice is written by
// the whole parse (which keeps the last, as a read does); a torn one is
// never written, in the whole parse's words.
func TestMarkInPlace(t *testing.T) {
	h := newHome(t)
	const before, after = `{"x":[1, 2],"protocol_version":1,"agents":{"b":{"host":"o", "k":1},"a-box":{"host":"box","pane_id":"%2"}, "c" : 5}}`, "\n"
	writeRegistry(t, h, before+after)
	if err := Mark(h, "a-box", TouchWait, func(e *Entry) error { e.Note = "n"; return nil }); err != nil {
		t.Fatal(err)
	}
	b, _ := mustRead(t, h.Registry())
	want := `{"x":[1, 2],"protocol_version":1,"agents":{"b":{"host":"o", "k":1},"a-box":{
      "host": "box",
      "note": "n",
      "pane_id": "%2"
    }, "c" : 5}}` + after
	if string(b) != want {
		t.Fatalf("after the mark:\n%s\nwant\n%s", b, want)
	}
	if e, _, err := Lookup(h, "a-box"); err != nil || e.Note != "n" || e.Host != "box" {
		t.Fatalf("read back %+v, %v", e, err)
	}

	writeRegistry(t, h, `{"agents":{"a-box":{"host":"one"},"a-box":{"host":"two"}}}`)
	if err := Mark(h, "a-box", TouchWait, func(e *Entry) error { e.Note = "n"; return nil }); err != nil {
		t.Fatal(err)
	}
	if e, _, err := Lookup(h, "a-box"); err != nil || e.Host != "two" || e.Note != "n" {
		t.Fatalf("the name twice: read back %+v, %v; want the last, marked", e, err)
	}
	if b, _ := mustRead(t, h.Registry()); strings.Count(string(b), `"a-box"`) != 1 {
		t.Fatalf("the name twice: the whole parse left %s", b)
	}

	writeRegistry(t, h, `{"agents":{"a-box":{"host":"one"}}`)
	b, fi := mustRead(t, h.Registry())
	err := Mark(h, "a-box", TouchWait, func(e *Entry) error { e.Note = "n"; return nil })
	var ue *UpdateError
	if !errors.As(err, &ue) || !errors.Is(err, ErrUnreadable) || !strings.Contains(errors.Unwrap(err).Error(), "not JSON") {
		t.Fatalf("a torn registry: %v; want an UpdateError wrapping ErrUnreadable with parse's reason", err)
	}
	assertUnchanged(t, h.Registry(), b, fi)
}
