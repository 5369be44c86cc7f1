package daemon

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sotcomm/sotd/wire"
)

// stalledForward starts hb, ga and gm with a long inbox lock wait (so a
// forward and its offers are bounded at 31 s), has gm hold @mallory and stall
// every offer, and sends alice's line to @mallory from a client of ga. It
// returns once the hub has offered the line to gm, with the client and the
// channel its answer comes on.
func stalledForward(t *testing.T) (hb, ga *netBox, gm *hostile, c *wire.Client, answered <-chan error) {
	t.Setenv("SOT_INBOX_LOCK_WAIT_SECS", "30")
	hb, ga, gm = trustBoxes(t)
	gm.stall()
	gm.claim(t, "mallory")
	waitFor(t, "the hub to take gm's claim", func() bool { return hb.d.net.Router().Holder("mallory") == "gm" })
	c = ga.dial(t)
	done := make(chan error, 1)
	go func() {
		_, err := call(t, c, wire.CommFile{From: "alice", To: "mallory", Text: "held", ID: "ID-HELD"})
		done <- err
	}()
	select {
	case <-gm.offered:
	case <-time.After(10 * time.Second):
		t.Fatal("the hub did not offer alice's forwarded line to gm")
	}
	return hb, ga, gm, c, done
}

// gaveUp waits for gm to see its stalled offer given up, well within the 31 s
// the offer was bounded by.
func gaveUp(t *testing.T, gm *hostile, after string) {
	t.Helper()
	select {
	case <-gm.gaveUp:
	case <-time.After(5 * time.Second):
		t.Fatalf("the hub's offer to gm was not given up within 5s of %s; a request outlived its client", after)
	}
}

// TestAClientThatHangsUpCancelsItsForward: the client's connection ending
// ends its request's context, so ga gives up the forward and the hub its
// offer, rather than each waiting out its bound.
func TestAClientThatHangsUpCancelsItsForward(t *testing.T) {
	_, _, gm, c, answered := stalledForward(t)
	c.Close()
	gaveUp(t, gm, "the client hanging up")
	<-answered
}

// TestRunStopsWithAForwardInFlight: the daemon told to stop gives up a
// forward in flight, answers it as unanswered (the line may still be filed),
// and Run returns leaving no goroutine behind.
func TestRunStopsWithAForwardInFlight(t *testing.T) {
	before := goleak.IgnoreCurrent()
	hb, ga, gm, _, answered := stalledForward(t)
	if err := ga.stop(t); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	wantRefusal(t, <-answered, wire.CodeNoAnswer, "may still be filed")
	gaveUp(t, gm, "ga stopping")
	if err := hb.stop(t); err != nil {
		t.Fatalf("the hub's Run = %v, want nil", err)
	}
	gm.conn.Close()
	goleak.VerifyNone(t, before)
}
