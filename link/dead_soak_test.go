//go:build soak

package link

import (
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
)

// TestMeasureDeadLinkDetection is the measurement behind the package doc's
// 15 s, with the production constants: a hub that dies without a word (its
// socket closes, as under kill -9, and nothing comes back) is found dead by its
// guest within DeadAfter of the kill.
//
//	go test -tags soak -run MeasureDeadLink -v ./link/
func TestMeasureDeadLinkDetection(t *testing.T) {
	hubEnd, g, h := pair(t, dialQUIC, Config{}, Config{})
	// A beat each way has been heard, so the guest's last word from the hub
	// is from just before the kill or up to a heartbeat earlier.
	testutil.Eventually(t, 5*time.Second, "a timed beat each way", func() bool {
		return g.Health().Samples > 0 && hubEnd.Health().Samples > 0
	})
	killed := time.Now()
	h.srv.udp.Close()
	select {
	case <-g.Done():
	case <-time.After(2 * DeadAfter):
		t.Fatalf("the guest's link is still up %s after its hub died", 2*DeadAfter)
	}
	took := time.Since(killed)
	t.Logf("a dead hub found by its guest %s after it died (DeadAfter %s, heartbeats every %s): %v", took.Round(time.Millisecond), DeadAfter, HeartbeatEvery, g.Err())
	if took > DeadAfter+deadSlack {
		t.Fatalf("found dead after %s; the package doc promises %s at the latest", took.Round(time.Millisecond), DeadAfter)
	}
}
