package daemon

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// linkStatus asks r's daemon for link.status, as sotd doctor does.
func linkStatus(t testing.TB, r *rig) wire.LinkStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), answerWait)
	defer cancel()
	var st wire.LinkStatus
	if err := r.dial(t).Call(ctx, wire.OpLinkStatus, struct{}{}, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// linkOf is box's entry in st, failing when there is none.
func linkOf(t testing.TB, st wire.LinkStatus, box string) wire.LinkState {
	t.Helper()
	for _, l := range st.Links {
		if l.Box == box {
			return l
		}
	}
	t.Fatalf("link.status has no %s: %+v", box, st)
	return wire.LinkState{}
}

func TestLinkStatusByRole(t *testing.T) {
	hb, ga, gb := threeBoxes(t)
	since := testNow.UTC().Format(time.RFC3339Nano)
	timed := func(l wire.LinkState) bool { return l.RTTMillis != nil && l.OffsetMillis != nil }
	waitFor(t, "each end of each link to be timed", func() bool {
		st := linkStatus(t, hb.rig)
		return timed(linkOf(t, st, "ga")) && timed(linkOf(t, st, "gb")) && timed(linkOf(t, linkStatus(t, ga.rig), "hb"))
	})

	for _, tc := range []struct {
		name  string
		box   *netBox
		role  string
		boxes []string // in order
		up    map[string]bool
	}{
		// gx is a frontend box hosts.toml says should link, and never does.
		{"hub", hb, wire.LinkRoleHub, []string{"ga", "gb", "gx"}, map[string]bool{"ga": true, "gb": true}},
		{"guest", ga, wire.LinkRoleGuest, []string{"hb"}, map[string]bool{"hb": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := linkStatus(t, tc.box.rig)
			if st.Role != tc.role || !strings.Contains(st.Reason, "hosts.toml names hb") {
				t.Fatalf("role %q (%q), want %s", st.Role, st.Reason, tc.role)
			}
			if len(st.Links) != len(tc.boxes) {
				t.Fatalf("links %+v, want %v", st.Links, tc.boxes)
			}
			for i, l := range st.Links {
				if l.Box != tc.boxes[i] || l.Up != tc.up[l.Box] || l.Since != since {
					t.Errorf("link %d = %+v; want %s up %v since %s", i, l, tc.boxes[i], tc.up[l.Box], since)
				}
				if !l.Up {
					if l.Transport != "" || l.RTTMillis != nil || l.LastError != "" {
						t.Errorf("%s never linked, yet shows %+v", l.Box, l)
					}
					continue
				}
				// One clock on one machine: the offset is the measuring error,
				// within half the round trip.
				if l.Transport != "quic" || *l.RTTMillis <= 0 || *l.RTTMillis > 1000 || abs(*l.OffsetMillis) > *l.RTTMillis/2+5 {
					t.Errorf("%s: %s, rtt %vms, offset %vms; want a timed loopback QUIC link", l.Box, l.Transport, *l.RTTMillis, *l.OffsetMillis)
				}
			}
		})
	}

	// The page shows each link's round trip too.
	for _, l := range hb.d.view.Snapshot().Links {
		if l.Peer == "ga" && (!l.Up || l.RTTMillis <= 0) {
			t.Errorf("the hub's page shows %+v for ga; want it up with its round trip", l)
		}
	}

	// A guest that stops: the hub names it down and why its link ended.
	if err := gb.stop(t); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the hub to see gb's link end", func() bool { return !linkOf(t, linkStatus(t, hb.rig), "gb").Up })
	if l := linkOf(t, linkStatus(t, hb.rig), "gb"); !strings.Contains(l.LastError, "closed by gb") || l.RTTMillis != nil || l.Transport != "" {
		t.Errorf("gb after it stopped: %+v; want down, closed by gb", l)
	}
	// The hub stops: the guest names its hub down, and keeps trying.
	if err := hb.stop(t); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "ga to see its link end", func() bool {
		l := linkOf(t, linkStatus(t, ga.rig), "hb")
		return !l.Up && l.LastError != ""
	})
	if l := linkOf(t, linkStatus(t, ga.rig), "hb"); !strings.Contains(l.LastError, "closed by hb") {
		t.Errorf("ga's link to its stopped hub: %+v; want it closed by hb", l)
	}
}

func TestLinkStatusStandalone(t *testing.T) {
	r := startRig(t) // no hosts.toml
	st := linkStatus(t, r)
	if st.Role != wire.LinkRoleStandalone || st.Links == nil || len(st.Links) != 0 || !strings.Contains(st.Reason, "standalone hub") {
		t.Fatalf("link.status with no hosts.toml = %+v; want standalone, no links", st)
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
