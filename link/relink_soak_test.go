//go:build soak

package link

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/backoff"
	"github.com/sotcomm/sotd/internal/testutil"
)

// TestMeasureRelinkAfterThreeHubCrashes is the measurement behind Relink,
// with the production constants and clock: a linked guest's hub crashes (its
// socket closes without a word) and starts again on the same address at once,
// three times in a row; each relink is timed from the restart. It takes the
// guest's next heartbeat (up to 5 s) to meet the stateless reset, then one wait
// from the start of the schedule, 1–2 s, however many crashes came before.
//
//	go test -tags soak -run MeasureRelink -v ./link/
func TestMeasureRelinkAfterThreeHubCrashes(t *testing.T) {
	hid, gid := newID(t, "hub"), newID(t, "guest")
	pins := map[string]string{gid.Fingerprint(): "guest"}
	h := startHubAt(t, hid, pins, Config{}, "127.0.0.1:0", "")
	addr := h.srv.Addr().String()
	k := &Keeper{
		Config: Config{Box: "guest"},
		Resolve: func() (Target, error) {
			return Target{Identity: gid, Hub: "hub", Addr: addr, Key: hid.Fingerprint()}, nil
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		backoff.Loop{Policy: Relink, Name: "link to hub", Log: slog.New(slog.DiscardHandler)}.Run(ctx, k.Run)
		close(done)
	}()
	defer func() { cancel(); <-done }()
	testutil.Eventually(t, 10*time.Second, "the first link", func() bool { return k.Current() != nil })
	for crash := 1; crash <= 3; crash++ {
		old := k.Current()
		h.srv.udp.Close()
		h = startHubAt(t, hid, pins, Config{}, addr, "")
		back := time.Now()
		testutil.Eventually(t, 2*MaxBackoff, "a relink", func() bool { c := k.Current(); return c != nil && c != old })
		t.Logf("crash %d: relinked %s after the hub was back (the old link ended: %v)", crash, time.Since(back).Round(time.Millisecond), old.Err())
		if took := time.Since(back); took > HeartbeatEvery+FirstBackoff+time.Second {
			t.Errorf("crash %d: relinked after %s; want a heartbeat and one first wait at most", crash, took.Round(time.Millisecond))
		}
	}
}
