package registry

import (
	"errors"
	"testing"
	"time"
)

func TestLive(t *testing.T) {
	now := time.Date(2026, 5, 29, 18, 10, 0, 500_000_000, time.UTC)
	tests := []struct {
		name, stamp string
		env         map[string]string
		live        bool
	}{
		{"now", "2026-05-29T18:10:00Z", nil, true},
		{"599 s old", "2026-05-29T18:00:01Z", nil, true},
		{"600 s old", "2026-05-29T18:00:00Z", nil, false},
		{"an hour old", "2026-05-29T17:10:00Z", nil, false},
		{"ahead of this clock", "2026-05-29T18:20:00Z", nil, true},
		{"far ahead: no upper bound, as the shell", "2099-01-01T00:00:00Z", nil, true},
		{"fractional seconds", "2026-05-29T18:09:59.5Z", nil, false},
		{"an offset", "2026-05-29T18:09:59+00:00", nil, false},
		{"a space", "2026-05-29 18:09:59Z", nil, false},
		{"lower case", "2026-05-29t18:09:59z", nil, false},
		{"not digits", "2026-05-29T18:0x:59Z", nil, false},
		{"wide digits", "２026-05-29T18:09:59Z", nil, false},
		{"empty", "", nil, false},
		{"COMM_LIVE_SECS shortens", "2026-05-29T18:09:31Z", map[string]string{"COMM_LIVE_SECS": "30"}, true},
		{"COMM_LIVE_SECS edge", "2026-05-29T18:09:30Z", map[string]string{"COMM_LIVE_SECS": "30"}, false},
		{"LIVE_SECS too", "2026-05-29T18:09:30Z", map[string]string{"LIVE_SECS": "30"}, false},
		{"COMM_LIVE_SECS wins", "2026-05-29T17:50:00Z", map[string]string{"COMM_LIVE_SECS": "3600", "LIVE_SECS": "30"}, true},
		{"a bad value is the default", "2026-05-29T18:00:01Z", map[string]string{"COMM_LIVE_SECS": "ten"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("COMM_LIVE_SECS", "")
			t.Setenv("LIVE_SECS", "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if got := Live(tc.stamp, now); got != tc.live {
				t.Errorf("Live(%q) = %v, want %v (window %v)", tc.stamp, got, tc.live, LiveFor())
			}
		})
	}
}

// TestStaleFor: stale for d means past the live window by at least d; a
// last_seen that is no stamp has no age.
func TestStaleFor(t *testing.T) {
	t.Setenv("COMM_LIVE_SECS", "")
	t.Setenv("LIVE_SECS", "")
	now := time.Date(2026, 5, 29, 18, 10, 0, 0, time.UTC)
	day := 24 * time.Hour
	tests := []struct {
		name, stamp string
		d           time.Duration
		stale       bool
	}{
		{"live", "2026-05-29T18:05:00Z", 0, false},
		{"just stale, for 0", "2026-05-29T18:00:00Z", 0, true},
		{"stale a day, asked 30 days", "2026-05-28T18:00:00Z", 30 * day, false},
		{"stale exactly 30 days", "2026-04-29T18:00:00Z", 30 * day, true},
		{"a second short of 30 days", "2026-04-29T18:00:01Z", 30 * day, false},
		{"no stamp", "yesterday", 0, false},
		{"empty", "", 0, false},
	}
	for _, tc := range tests {
		if got := StaleFor(tc.stamp, now, tc.d); got != tc.stale {
			t.Errorf("%s: StaleFor(%q, %v) = %v, want %v", tc.name, tc.stamp, tc.d, got, tc.stale)
		}
	}
}

func TestStamp(t *testing.T) {
	at := time.Date(2026, 6, 15, 21, 32, 13, 999_999_999, time.FixedZone("CEST", 2*3600))
	if got := Stamp(at); got != "2026-06-15T19:32:13Z" {
		t.Errorf("Stamp = %q", got)
	}
	if !stampShape(Stamp(at)) {
		t.Error("Stamp does not have the shape Live requires")
	}
}

func TestTouch(t *testing.T) {
	h := newHome(t)
	writeRegistry(t, h, `{"protocol_version":1,"agents":{"a-box":{"host":"box","last_seen":"2026-01-01T00:00:00Z","pane_id":"%2"},"odd":[1]}}`)
	now := time.Date(2026, 5, 29, 18, 4, 0, 0, time.UTC)
	if err := Touch(h, "a-box", now, TouchWait); err != nil {
		t.Fatal(err)
	}
	e, _, err := Lookup(h, "a-box")
	if err != nil || e.LastSeen != "2026-05-29T18:04:00Z" || string(e.Extra["pane_id"]) != `"%2"` {
		t.Fatalf("touched row %+v, %v", e, err)
	}
	for _, name := range []string{"nobody", "odd"} {
		b, fi := mustRead(t, h.Registry())
		if err := Touch(h, name, now, TouchWait); err != nil {
			t.Errorf("Touch(%s) = %v; an absent row is no error", name, err)
		}
		assertUnchanged(t, h.Registry(), b, fi)
	}
}

func TestTouchOnAnUnreadableRegistryFails(t *testing.T) {
	h := newHome(t)
	writeRegistry(t, h, `{"agents":`)
	if err := Touch(h, "a-box", time.Now(), TouchWait); !errors.Is(err, ErrUnreadable) {
		t.Fatalf("Touch = %v", err)
	}
}
