package hub

import (
	"context"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/wire"
)

// tickingBox is a box that promised a directory event on every poll and has
// told its full set, holds.
func tickingBox(r *Router, name string, answer func(context.Context, wire.CommFile) (wire.CommFiled, error), holds ...string) *box {
	b := newBox(name, answer)
	b.ticks = true
	link(r, b)
	r.Directory(b, wire.LinkDirectory{Full: true, Added: holds})
	return b
}

var aTick = wire.LinkDirectory{} // nothing changed since the last event

// tickRouter is a router whose lines wait up to 10 s for ticks, within 20 s of
// offers, and the clock it reads when lines and events arrive: it moves only
// when the test moves it, so "a tick that came at once" is at once however
// loaded the machine is.
func tickRouter(t *testing.T) (*Router, *testutil.Clock) {
	c := testutil.NewClock(time.Now())
	r := New(Config{Wait: 20 * time.Second, TickWait: 10 * time.Second, Now: c.Now})
	t.Cleanup(r.Wait)
	return r, c
}

// answerOf is the answer offerAside hands back; none within 5 s fails t with
// why.
func answerOf(t *testing.T, got <-chan error, why string) error {
	t.Helper()
	select {
	case err := <-got:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal(why)
		return nil
	}
}

// pastTransit moves c on until an event b sends could not have been on its
// way when a line that arrived by now did (sentAfter).
func pastTransit(c *testutil.Clock, b *box) { c.Add(2*b.rtt + tickSlack) }

// offerAside runs Offer for @to and hands its answer back once it comes.
func offerAside(r *Router, to string) <-chan error {
	got := make(chan error, 1)
	go func() {
		res, err := r.Offer(context.Background(), req(to), nil)
		if err == nil && !res.OK {
			err = context.Canceled
		}
		got <- err
	}()
	return got
}

// A line for a handle no directory names goes at once to the box that keeps
// no complete directory, while the hub waits for the ticking box's next
// event; that event, sent after the request arrived and naming nothing, ends
// the wait, and the ticking box never sees the line.
func TestATickAfterTheRequestEndsTheWaitWithoutAnOffer(t *testing.T) {
	r, c := tickRouter(t)
	ga := tickingBox(r, "ga", files, "alice")
	old := newBox("old", notHere)
	link(r, old)
	got := offerAside(r, "bob")
	testutil.Eventually(t, 5*time.Second, "the box without ticks to be offered @bob at once", func() bool { return len(old.asked()) == 1 })
	pastTransit(c, ga)
	r.Directory(ga, aTick)
	if err := answerOf(t, got, "a tick after the request arrived did not end the wait"); err == nil || err.Error() != "no box knows that handle: bob" {
		t.Fatalf("Offer = %v; want no box knows", err)
	}
	r.Wait()
	if n := len(ga.asked()); n != 0 {
		t.Fatalf("the ticking box was offered @bob %d times; want none: its tick said it holds no @bob", n)
	}
}

// A tick that came before the request says nothing of a join since: with no
// tick after it by TickWait, the box is offered the line, never guessed empty.
func TestABoxThatDoesNotTickInTimeIsOffered(t *testing.T) {
	r := New(Config{Wait: 2 * time.Second, TickWait: 100 * time.Millisecond})
	t.Cleanup(r.Wait)
	ga := tickingBox(r, "ga", files)
	r.Directory(ga, aTick)
	if res, err := r.Offer(context.Background(), req("bob"), nil); err != nil || !res.OK {
		t.Fatalf("Offer = %+v, %v; want ga's ok: it did not tick after the request arrived", res, err)
	}
	if n := len(ga.asked()); n != 1 {
		t.Fatalf("ga was offered @bob %d times; want once", n)
	}
}

// A holder that appears while the hub waits is offered the line alone, and
// its answer is the answer; the other ticking box never sees it.
func TestAHolderThatAppearsDuringTheWaitAloneIsOffered(t *testing.T) {
	r, _ := tickRouter(t)
	ga := tickingBox(r, "ga", files)
	gb := tickingBox(r, "gb", files)
	old := newBox("old", notHere)
	link(r, old)
	got := offerAside(r, "bob")
	testutil.Eventually(t, 5*time.Second, "the box without ticks to be offered @bob", func() bool { return len(old.asked()) == 1 })
	r.Directory(gb, wire.LinkDirectory{Added: []string{"bob"}})
	if err := answerOf(t, got, "the holder's directory event did not end the wait"); err != nil {
		t.Fatalf("Offer = %v; want gb's ok", err)
	}
	r.Wait()
	if len(ga.asked()) != 0 || len(gb.asked()) != 1 {
		t.Fatalf("ga was offered @bob %d times and gb %d; want 0 and 1", len(ga.asked()), len(gb.asked()))
	}
}

// A ticking box whose full set has not come yet is waited for, not offered
// the line: it sends that set first, and the set, come after the line and
// naming no @bob, ends the wait without an offer. A tick before the set says
// nothing of what the box holds.
func TestATickingBoxWithoutItsFullSetIsWaitedFor(t *testing.T) {
	r, c := tickRouter(t)
	ga := newBox("ga", files)
	ga.ticks = true
	link(r, ga)
	r.Directory(ga, aTick)
	got := offerAside(r, "bob")
	testutil.Eventually(t, 5*time.Second, "the line to wait for ga's full set", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.waiting) == 1
	})
	pastTransit(c, ga)
	r.Directory(ga, aTick) // not a full set: ga's directory is still unknown
	select {
	case err := <-got:
		t.Fatalf("Offer = %v after a tick before ga's full set; want it still waiting", err)
	default:
	}
	r.Directory(ga, wire.LinkDirectory{Full: true, Added: []string{"alice"}})
	if err := answerOf(t, got, "ga's full set did not end the wait"); err == nil || err.Error() != "no box knows that handle: bob" {
		t.Fatalf("Offer = %v; want no box knows", err)
	}
	r.Wait()
	if n := len(ga.asked()); n != 0 {
		t.Fatalf("ga was offered @bob %d times; want none: its full set names no @bob", n)
	}
}

// A box that keeps no complete directory is offered a line for a handle no
// directory names, and its ok is the answer only once its directory names the
// handle: an ok from a box that never claims it is not taken, and the line is
// answered not_here, not filed.
func TestAnOkFromABoxThatDoesNotHoldTheHandleIsNotTaken(t *testing.T) {
	for _, tc := range []struct {
		name string
		lies bool
		want string // "" for ok
	}{
		{"it claims the handle after its ok, as an honest box's next poll does", false, ""},
		{"it never claims the handle", true, "no box knows that handle: bob"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New(Config{Wait: time.Second})
			t.Cleanup(r.Wait)
			gm := newBox("gm", files)
			gm.lies = tc.lies
			link(r, gm)
			res, err := r.Offer(context.Background(), req("bob"), nil)
			switch {
			case tc.want == "" && (err != nil || !res.OK):
				t.Fatalf("Offer = %+v, %v; want gm's ok", res, err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Fatalf("Offer = %+v, %v; want %q", res, err, tc.want)
			}
		})
	}
}

// A tick changes no holder, so it leaves the negative cache alone: the second
// line for the same unheld handle neither waits nor is offered.
func TestATickKeepsTheNegativeCache(t *testing.T) {
	r, c := tickRouter(t)
	ga := tickingBox(r, "ga", files)
	got := offerAside(r, "bob")
	testutil.Eventually(t, 5*time.Second, "the line to wait for ga's next event", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.waiting) == 1
	})
	pastTransit(c, ga)
	r.Directory(ga, aTick)
	if err := answerOf(t, got, "a tick after the request arrived did not end the wait"); err == nil || err.Error() != "no box knows that handle: bob" {
		t.Fatalf("first Offer = %v; want no box knows", err)
	}
	r.Directory(ga, aTick)
	if _, err := r.Offer(context.Background(), req("bob"), nil); err == nil || err.Error() != "no box knows that handle: bob" {
		t.Fatalf("second Offer = %v; want no box knows, from the negative cache", err)
	}
	if n := len(ga.asked()); n != 0 {
		t.Fatalf("ga was offered @bob %d times; want none", n)
	}
}

// A tick that came within two round trips (and tickSlack) of the line may have left its box
// before the line arrived, its registry read before a session joined there just
// before the line was sent: it does not end the wait, and the box's next
// event, which names the session, gives the line its holder.
func TestATickThatMayHaveBeenOnItsWayDoesNotCount(t *testing.T) {
	r, c := tickRouter(t)
	ga := tickingBox(r, "ga", files)
	ga.rtt = time.Second // a slow link: its events take up to a second to come
	old := newBox("old", notHere)
	link(r, old)
	got := offerAside(r, "bob")
	waitingOnGa := func() int {
		r.mu.Lock()
		defer r.mu.Unlock()
		n := 0
		for w := range r.waiting {
			if _, late := w.late[ga]; late {
				n++
			}
		}
		return n
	}
	testutil.Eventually(t, 5*time.Second, "the line to wait for ga's next event", func() bool { return waitingOnGa() == 1 })
	r.Directory(ga, aTick) // read before bob joined on ga, and already on its way
	if n := waitingOnGa(); n != 1 {
		t.Fatalf("%d lines wait for ga's next event after a tick that came at once; want the one", n)
	}
	c.Add(2 * ga.rtt) // two round trips, but not the slack past them
	r.Directory(ga, aTick)
	if n := waitingOnGa(); n != 1 {
		t.Fatalf("%d lines wait for ga's next event after a tick two round trips on; want the one: it is within tickSlack", n)
	}
	r.Directory(ga, wire.LinkDirectory{Added: []string{"bob"}})
	if err := answerOf(t, got, "the holder's directory event did not end the wait"); err != nil {
		t.Fatalf("Offer = %v; want ga's ok: the tick that came at once may have been sent before bob joined", err)
	}
	r.Wait()
	if n := len(ga.asked()); n != 1 {
		t.Fatalf("ga was offered @bob %d times; want once", n)
	}
}
