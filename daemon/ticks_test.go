package daemon

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/wire"
)

// A line for a handle no box holds moves to no box whose directory is
// complete (every box here ticks): a member box, even a compromised one, never
// sees mail for a handle it does not hold.
func TestALineNoBoxHoldsIsOfferedToNoTickingBox(t *testing.T) {
	t.Parallel()
	_, ga, gm := trustBoxesWith(t, dialTicking)
	for i := range 3 {
		res, err := call(t, ga.dial(t), wire.CommFile{From: "alice", To: "nobody", Text: fmt.Sprintf("private %d", i), ID: fmt.Sprintf("ID-NOBODY-%d", i)})
		if r, ok := wire.RefusalOf(err); !ok || r.Code != wire.CodeNotHere {
			t.Fatalf("alice -> nobody = %+v, %v; want %s", res, err, wire.CodeNotHere)
		}
	}
	if got := gm.seen(); len(got) != 0 {
		t.Fatalf("gm was offered %d bodies for a handle it does not hold (first %q); want none", len(got), got[0].Text)
	}
}

// A box older than Ticks keeps no complete directory: it is still offered a
// line for a handle no directory names, as before, and its ok is the answer
// once its directory names the handle.
func TestABoxWithoutTicksIsStillOfferedUnnamedHandles(t *testing.T) {
	_, ga, gm := trustBoxesWith(t, func(t testing.TB, h home.Home, box, hosts string) *hostile {
		m := dialHostile(t, h, box, hosts)
		m.mu.Lock()
		m.claimsOffered = true
		m.mu.Unlock()
		return m
	})
	res, err := call(t, ga.dial(t), wire.CommFile{From: "alice", To: "olga", Text: "for a handle gm never named", ID: "ID-OLGA"})
	if err != nil || !res.OK {
		t.Fatalf("alice -> olga = %+v, %v; want gm's ok", res, err)
	}
	if got := gm.seen(); !slices.ContainsFunc(got, func(r wire.CommFile) bool { return r.ID == "ID-OLGA" }) {
		t.Fatalf("gm saw %+v; want the line for olga offered to it", got)
	}
}

// A session that joins on gb by writing the registry (no word to gb's daemon)
// is sent a line from ga at once: the hub, which has not heard of the handle,
// waits for gb's next directory event, which names it, and the line is filed
// on gb.
func TestALineRightAfterAJoinOnAnotherBoxIsFiledThere(t *testing.T) {
	t.Parallel()
	_, ga, gb := threeBoxes(t)
	for i := range 3 {
		handle := fmt.Sprintf("newcomer%d", i)
		joinOn(t, gb, handle)
		res, err := call(t, ga.dial(t), wire.CommFile{From: "alice", To: handle, Text: "welcome", ID: "ID-" + handle})
		if err != nil || !res.OK {
			t.Fatalf("alice -> %s right after the join = %+v, %v; want filed on gb", handle, res, err)
		}
		if n := inboxLines(t, gb.home, handle); n != 1 {
			t.Fatalf("@%s's inbox on gb holds %d lines, want 1", handle, n)
		}
	}
}

// Guest daemons tick: each sends a directory event on every poll, so the hub
// answers a line for a handle no box holds without offering it to either.
func TestGuestDaemonsTickSoNoGuestIsOfferedAnUnheldLine(t *testing.T) {
	t.Parallel()
	hb, ga, gb := threeBoxes(t)
	if !ga.d.net.HubLinks()[0].Keeper().Current().Ticks() || !gb.d.net.HubLinks()[0].Keeper().Current().Ticks() {
		t.Fatal("the guests' links did not agree to Ticks")
	}
	res, err := call(t, ga.dial(t), wire.CommFile{From: "alice", To: "nobody", Text: "for no one", ID: "ID-NOBODY"})
	if err == nil || err.Error() != "no linked box knows that handle: nobody; not linked: gx" {
		t.Fatalf("alice -> nobody = %+v, %v; want no linked box knows", res, err)
	}
	if hb.logs.Contains("offer not filed") {
		t.Fatalf("the hub offered @nobody to a ticking guest:\n%s", hb.logs.String())
	}
}
