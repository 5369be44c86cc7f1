package network

import (
	"testing"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// TestVerdictOfTwoHubs: with no hub filing, a hub that gave no answer makes the
// answer "may still be filed", the receiving box's own refusal outranks a
// hub's not knowing, and the sentence names both hubs tried; one hub's answer
// is its own, word for word.
func TestVerdictOfTwoHubs(t *testing.T) {
	ha, hb := &HubLink{name: "ha"}, &HubLink{name: "hb"}
	silent := wire.NoAnswer("ha", "bob", 3500*time.Millisecond)
	unknown := wire.NoBoxKnows("bob", nil)
	held := wire.Refuse(wire.CodeFileFailed, "the inbox lock for @bob was held for 2s — nothing was appended")
	for _, tc := range []struct {
		name string
		got  []attempt
		want string
	}{
		{"one hub", []attempt{{hub: ha, err: unknown}}, "no box knows that handle: bob"},
		{"silent, then unknown", []attempt{{hub: ha, err: silent}, {hub: hb, err: unknown}}, "the daemon on ha did not answer within 3.5s; @bob may still be filed (tried the hubs ha and hb)"},
		{"unknown, then the receiver's own", []attempt{{hub: ha, err: unknown}, {hub: hb, err: held}}, "the inbox lock for @bob was held for 2s — nothing was appended (tried the hubs ha and hb)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := verdict("bob", tc.got); err == nil || err.Error() != tc.want {
				t.Fatalf("verdict = %v, want %q", err, tc.want)
			}
		})
	}
	if !retryable(silent) || !retryable(unknown) || retryable(held) {
		t.Errorf("retryable: silent %v, unknown %v, held %v; want true, true, false", retryable(silent), retryable(unknown), retryable(held))
	}
}
