package registry

import (
	"errors"
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
