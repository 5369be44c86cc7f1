package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// box is a linked box as the router sees it: its answers are the test's.
type box struct {
	name   string
	answer func(ctx context.Context, req wire.CommFile) (wire.CommFiled, error)
	done   chan struct{}
	closed atomic.Bool
	ticks  bool          // it promised a directory event on every poll
	rtt    time.Duration // its link's round trip
	// r is the router it is linked to: an honest box that files a line
	// tells r's directory it holds the handle, as its next poll would.
	r *Router
	// lies: it answers ok without ever claiming the handle.
	lies bool

	mu   sync.Mutex
	reqs []wire.CommFile
}

func newBox(name string, answer func(ctx context.Context, req wire.CommFile) (wire.CommFiled, error)) *box {
	return &box{name: name, answer: answer, done: make(chan struct{})}
}

func (b *box) Box() string           { return b.name }
func (b *box) Close() error          { b.closed.Store(true); return nil }
func (b *box) Done() <-chan struct{} { return b.done }
func (b *box) Ticks() bool           { return b.ticks }
func (b *box) RTT() time.Duration    { return b.rtt }

func (b *box) Call(ctx context.Context, op string, req, resp any) error {
	r, ok := req.(wire.CommFile)
	if !ok {
		if err := wire.DecodePayload(req.(json.RawMessage), &r); err != nil {
			return err
		}
	}
	b.mu.Lock()
	b.reqs = append(b.reqs, r)
	b.mu.Unlock()
	res, err := b.answer(ctx, r)
	if err != nil {
		return err
	}
	if res.OK && b.r != nil && !b.lies && !b.r.names(b, r.To) {
		b.r.Directory(b, wire.LinkDirectory{Added: []string{r.To}})
	}
	*resp.(*wire.CommFiled) = res
	return nil
}

func (b *box) Go(op string, req, resp any, done func(error)) (cancel func()) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		done(b.Call(ctx, op, req, resp))
	}()
	return cancel
}

func (b *box) File(ctx context.Context, req wire.CommFile) (wire.CommFiled, error) {
	var res wire.CommFiled
	err := b.Call(ctx, wire.OpCommFile, req, &res)
	return res, err
}

func (b *box) asked() []wire.CommFile {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]wire.CommFile(nil), b.reqs...)
}

// Answers a box gives, as they arrive over a link.
func files(_ context.Context, req wire.CommFile) (wire.CommFiled, error) {
	return wire.CommFiled{OK: true, To: req.To}, nil
}

func notHere(_ context.Context, req wire.CommFile) (wire.CommFiled, error) {
	return wire.CommFiled{}, &wire.Refusal{Op: wire.OpCommFile, Code: wire.CodeNotHere, Sentence: "no box knows that handle: " + req.To}
}

func refuses(code, sentence string) func(context.Context, wire.CommFile) (wire.CommFiled, error) {
	return func(context.Context, wire.CommFile) (wire.CommFiled, error) {
		return wire.CommFiled{}, &wire.Refusal{Op: wire.OpCommFile, Code: code, Sentence: sentence}
	}
}

// silent answers nothing until the caller gives up, as a box behind a dead link.
func silent(ctx context.Context, _ wire.CommFile) (wire.CommFiled, error) {
	<-ctx.Done()
	return wire.CommFiled{}, ctx.Err()
}

func after(d time.Duration, then func(context.Context, wire.CommFile) (wire.CommFiled, error)) func(context.Context, wire.CommFile) (wire.CommFiled, error) {
	return func(ctx context.Context, req wire.CommFile) (wire.CommFiled, error) {
		select {
		case <-time.After(d):
			return then(ctx, req)
		case <-ctx.Done():
			return wire.CommFiled{}, ctx.Err()
		}
	}
}

const testWait = 300 * time.Millisecond

func newRouter(t *testing.T, should ...string) *Router {
	r := New(Config{Wait: testWait, ShouldLink: func() []string { return should }})
	t.Cleanup(r.Wait)
	return r
}

func link(r *Router, boxes ...*box) {
	for _, b := range boxes {
		b.r = r
		r.Add(b)
	}
}

func req(to string) wire.CommFile {
	return wire.CommFile{From: "alice", To: to, Text: "hi", ID: "01TESTID"}
}

func TestOffer(t *testing.T) {
	type boxSpec struct {
		name   string
		answer func(context.Context, wire.CommFile) (wire.CommFiled, error)
		holds  bool // it told the directory it holds @bob
	}
	for _, tc := range []struct {
		name   string
		boxes  []boxSpec
		should []string // boxes hosts.toml says should link
		first  *wire.Refusal
		want   string   // "" for ok
		asked  []string // the boxes that got the body
	}{
		{"the directory's holder alone gets the body",
			[]boxSpec{{"ga", notHere, false}, {"gb", files, true}, {"gc", notHere, false}}, nil, nil,
			"", []string{"gb"}},
		{"no directory: every box is asked and the one that files answers",
			[]boxSpec{{"ga", notHere, false}, {"gb", files, false}, {"gc", notHere, false}}, nil, nil,
			"", []string{"ga", "gb", "gc"}},
		{"a holder that answers not_here is the answer: no other box sees the body",
			[]boxSpec{{"ga", notHere, true}, {"gb", notHere, false}, {"gc", files, false}}, nil, nil,
			"no box knows that handle: bob", []string{"ga"}},
		{"a holder's refusal is the verdict, in its own words, and nobody else is asked",
			[]boxSpec{{"ga", refuses(wire.CodeFileFailed, "the inbox lock for @bob was held for 2s — nothing was appended"), true}, {"gb", files, false}}, nil, nil,
			"the inbox lock for @bob was held for 2s — nothing was appended", []string{"ga"}},
		{"a silent holder is named, and nobody else is asked",
			[]boxSpec{{"ga", silent, true}, {"gb", files, false}}, nil, nil,
			"the daemon on ga did not answer within 0.3s; @bob may still be filed", []string{"ga"}},
		{"the first ok wins over an earlier refusal",
			[]boxSpec{{"ga", refuses(wire.CodeNoLiveSession, "no live session holds @bob"), false}, {"gb", after(50*time.Millisecond, files), false}}, nil, nil,
			"", []string{"ga", "gb"}},
		{"the first refusal that is not not_here",
			[]boxSpec{{"ga", notHere, false}, {"gb", refuses(wire.CodeNoLiveSession, "no live session holds @bob"), false}}, nil, nil,
			"no live session holds @bob", []string{"ga", "gb"}},
		{"a silent box outranks a refusal: it may have filed the line",
			[]boxSpec{{"ga", silent, false}, {"gb", after(20*time.Millisecond, refuses(wire.CodeFileFailed, "gb's own words")), false}}, nil, nil,
			"the daemon on ga did not answer within 0.3s; @bob may still be filed", []string{"ga", "gb"}},
		{"a silent holder outranks the hub's own stale entry",
			[]boxSpec{{"ga", silent, true}}, nil, wire.Refuse(wire.CodeNoLiveSession, "no live session holds @bob"),
			"the daemon on ga did not answer within 0.3s; @bob may still be filed", []string{"ga"}},
		{"a silent box outranks not_here",
			[]boxSpec{{"ga", notHere, false}, {"gb", silent, false}}, nil, nil,
			"the daemon on gb did not answer within 0.3s; @bob may still be filed", []string{"ga", "gb"}},
		{"nobody knows it",
			[]boxSpec{{"ga", notHere, false}, {"gb", notHere, false}}, []string{"ga", "gb"}, nil,
			"no box knows that handle: bob", []string{"ga", "gb"}},
		{"nobody linked knows it, and a box that should link holds none",
			[]boxSpec{{"ga", notHere, false}}, []string{"ga", "gx", "gy"}, nil,
			"no linked box knows that handle: bob; not linked: gx, gy", []string{"ga"}},
		{"no box is linked at all",
			nil, nil, nil,
			"no box knows that handle: bob", nil},
		{"the hub's own refusal stands first when no box files",
			[]boxSpec{{"ga", notHere, false}, {"gb", refuses(wire.CodeFileFailed, "gb's own words"), false}}, nil, wire.Refuse(wire.CodeNoLiveSession, "no live session holds @bob"),
			"no live session holds @bob", []string{"ga", "gb"}},
		{"a box's ok wins over the hub's own refusal",
			[]boxSpec{{"ga", files, false}}, nil, wire.Refuse(wire.CodeNoLiveSession, "no live session holds @bob"),
			"", []string{"ga"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRouter(t, tc.should...)
			var boxes []*box
			for _, s := range tc.boxes {
				b := newBox(s.name, s.answer)
				boxes = append(boxes, b)
				link(r, b)
				if s.holds {
					r.Directory(b, wire.LinkDirectory{Full: true, Added: []string{"bob", "other"}})
				}
			}
			start := time.Now()
			res, err := r.Offer(context.Background(), req("bob"), tc.first)
			if took := time.Since(start); took > testWait+200*time.Millisecond {
				t.Errorf("Offer took %s, past its bound %s", took, testWait)
			}
			switch {
			case tc.want == "" && (err != nil || !res.OK || res.To != "bob"):
				t.Fatalf("Offer = %+v, %v; want ok", res, err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Fatalf("Offer = %+v, %v; want the refusal %q", res, err, tc.want)
			}
			r.Wait()
			var asked []string
			for _, b := range boxes {
				got := b.asked()
				if len(got) > 1 {
					t.Errorf("%s got the body %d times", b.name, len(got))
				}
				if len(got) > 0 {
					asked = append(asked, b.name)
					if !got[0].Forwarded || got[0].ID != "01TESTID" || got[0].To != "bob" {
						t.Errorf("%s was offered %+v; want the request, marked forwarded, id kept", b.name, got[0])
					}
				}
			}
			if strings.Join(asked, ",") != strings.Join(tc.asked, ",") {
				t.Fatalf("the body went to %v, want %v", asked, tc.asked)
			}
		})
	}
}

func TestDeliver(t *testing.T) {
	for _, tc := range []struct {
		name    string
		here    error // what filing into the hub's own folder answered
		want    string
		offered bool
	}{
		{"filed here: nobody is asked", nil, "", false},
		{"refused here for a held lock: the hub's verdict, nobody is asked", wire.Refuse(wire.CodeFileFailed, "the inbox lock for @bob was held for 2s — nothing was appended"), "the inbox lock for @bob was held for 2s — nothing was appended", false},
		{"not here: offered, and the box that holds it files", wire.Refuse(wire.CodeNotHere, "no box knows that handle: bob"), "", true},
		{"stale here: offered, and the box that holds it files", wire.Refuse(wire.CodeNoLiveSession, "no live session holds @bob"), "", true},
		{"a failure that is no refusal is the verdict", errors.New("disk on fire"), "disk on fire", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRouter(t)
			gb := newBox("gb", files)
			link(r, gb)
			res, err := r.Deliver(context.Background(), req("bob"), func() (wire.CommFiled, error) {
				if tc.here != nil {
					return wire.CommFiled{}, tc.here
				}
				return wire.CommFiled{OK: true, To: "bob"}, nil
			})
			if tc.want == "" && (err != nil || !res.OK) || tc.want != "" && (err == nil || err.Error() != tc.want) {
				t.Fatalf("Deliver = %+v, %v; want %q", res, err, tc.want)
			}
			if got := len(gb.asked()) > 0; got != tc.offered {
				t.Fatalf("offered to gb: %v, want %v", got, tc.offered)
			}
		})
	}
}

func TestDirectory(t *testing.T) {
	r := newRouter(t)
	ga, gb := newBox("ga", files), newBox("gb", files)
	link(r, ga, gb)
	holder := func(h string) string {
		if p := r.holder(h); p != nil {
			return p.Box()
		}
		return ""
	}
	steps := []struct {
		name string
		do   func()
		want map[string]string // handle -> holder ("" for none)
	}{
		{"full sets", func() {
			r.Directory(ga, wire.LinkDirectory{Full: true, Added: []string{"alice", "amy"}})
			r.Directory(gb, wire.LinkDirectory{Full: true, Added: []string{"bob"}})
		}, map[string]string{"alice": "ga", "amy": "ga", "bob": "gb"}},
		{"a change adds and removes", func() {
			r.Directory(ga, wire.LinkDirectory{Added: []string{"ann"}, Removed: []string{"amy"}})
		}, map[string]string{"alice": "ga", "amy": "", "ann": "ga", "bob": "gb"}},
		{"a full set replaces", func() {
			r.Directory(ga, wire.LinkDirectory{Full: true, Added: []string{"alice"}})
		}, map[string]string{"alice": "ga", "ann": ""}},
		{"a second claim on a held handle is refused: the first holder keeps it", func() {
			if err := r.Directory(gb, wire.LinkDirectory{Added: []string{"alice"}}); err == nil || !strings.Contains(err.Error(), "another box holds it") {
				t.Fatalf("a second claim on alice = %v, want it refused", err)
			}
		}, map[string]string{"alice": "ga", "bob": "gb"}},
		{"a handle that is no handle is not taken", func() {
			r.Directory(gb, wire.LinkDirectory{Added: []string{"../x"}})
		}, map[string]string{"../x": ""}},
		{"a handle its holder drops can be claimed by another box", func() {
			r.Directory(ga, wire.LinkDirectory{Removed: []string{"alice"}})
			if err := r.Directory(gb, wire.LinkDirectory{Added: []string{"alice"}}); err != nil {
				t.Fatal(err)
			}
		}, map[string]string{"alice": "gb", "bob": "gb"}},
		{"a link that ends takes its handles with it, and they stay its box's: another box's claim is refused", func() {
			close(gb.done)
			r.Remove(gb)
			if err := r.Directory(ga, wire.LinkDirectory{Added: []string{"alice"}}); err == nil || !strings.Contains(err.Error(), "held by gb") {
				t.Fatalf("ga's claim on alice, gb's a moment ago = %v; want it refused, kept for gb", err)
			}
		}, map[string]string{"alice": "", "bob": ""}},
		{"its box, linking again, takes them back", func() {
			again := newBox("gb", files)
			link(r, again)
			if err := r.Directory(again, wire.LinkDirectory{Full: true, Added: []string{"alice"}}); err != nil {
				t.Fatal(err)
			}
			close(again.done)
			r.Remove(again)
		}, map[string]string{"alice": ""}},
		{"an ended link's late event is dropped", func() {
			r.Directory(gb, wire.LinkDirectory{Added: []string{"bob"}})
		}, map[string]string{"bob": ""}},
	}
	for _, s := range steps {
		s.do()
		for h, want := range s.want {
			if got := holder(h); got != want {
				t.Fatalf("after %s: holder of %q = %q, want %q", s.name, h, got, want)
			}
		}
	}
	if got := strings.Join(r.Linked(), ","); got != "ga" {
		t.Fatalf("Linked = %s, want ga", got)
	}
}

func TestNewerLinkOfABoxIsUsed(t *testing.T) {
	r := newRouter(t)
	old, cur := newBox("ga", notHere), newBox("ga", files)
	link(r, old)
	r.Directory(old, wire.LinkDirectory{Full: true, Added: []string{"bob"}})
	link(r, cur)
	if !old.closed.Load() {
		t.Fatal("the box's older link was not closed when it linked again")
	}
	r.Directory(cur, wire.LinkDirectory{Full: true, Added: []string{"bob"}})
	// The old link ends after the new one came up: the new one stays.
	close(old.done)
	r.Remove(old)
	if res, err := r.Offer(context.Background(), req("bob"), nil); err != nil || !res.OK {
		t.Fatalf("Offer = %+v, %v; want ok over the newer link", res, err)
	}
	if len(old.asked()) != 0 || len(cur.asked()) != 1 {
		t.Fatalf("old link asked %d times, newer %d; want 0 and 1", len(old.asked()), len(cur.asked()))
	}
}

func TestOffersInFlightAreBoundedPerLink(t *testing.T) {
	r := New(Config{Wait: 5 * time.Second, MaxOffers: 3})
	t.Cleanup(r.Wait)
	var now, peak atomic.Int32
	slow := func(ctx context.Context, req wire.CommFile) (wire.CommFiled, error) {
		n := now.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
		now.Add(-1)
		return notHere(ctx, req)
	}
	link(r, newBox("abox", slow))
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if _, err := r.Offer(context.Background(), req("bob"), nil); err == nil || !strings.HasPrefix(err.Error(), "no box knows") {
				t.Errorf("Offer = %v, want no box knows", err)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p > 3 || p < 2 {
		t.Fatalf("%d offers were in flight at once to one box, want at most 3 (and more than 1)", p)
	}
}

// TestASilentBoxHoldsOnlyItsOwnSlots: a box that never answers fills its own
// share of offer slots, and a send to a handle another box holds is answered at
// once (on a shared pool it waited for a slot until its deadline).
func TestASilentBoxHoldsOnlyItsOwnSlots(t *testing.T) {
	r := New(Config{Wait: 3 * time.Second, MaxOffers: 2})
	t.Cleanup(r.Wait)
	mute := newBox("mute", silent)
	gb := newBox("gb", func(ctx context.Context, req wire.CommFile) (wire.CommFiled, error) {
		if req.To == "bob" {
			return files(ctx, req)
		}
		return notHere(ctx, req)
	})
	link(r, mute, gb)
	if err := r.Directory(gb, wire.LinkDirectory{Full: true, Added: []string{"bob"}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// The unheld offers end with ctx, before the test does: one left running
	// raced with the next test's start.
	var unheld sync.WaitGroup
	defer unheld.Wait()
	defer cancel()
	for range 4 { // offers to an unheld handle go to every box; mute keeps its two slots
		unheld.Go(func() { r.Offer(ctx, req("nobody"), nil) })
	}
	testutil.Eventually(t, 2*time.Second, "mute to hold both its slots", func() bool { return len(mute.asked()) == 2 })
	start := time.Now()
	if res, err := r.Offer(context.Background(), req("bob"), nil); err != nil || !res.OK {
		t.Fatalf("Offer to gb's handle = %+v, %v; want ok", res, err)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("the send to gb's handle took %s while mute held its slots", took)
	}
}

func TestDirectoryBounds(t *testing.T) {
	r := New(Config{Wait: testWait, MaxHandles: 3, Own: func() map[string]bool { return map[string]bool{"hubby": true} }})
	t.Cleanup(r.Wait)
	ga := newBox("ga", files)
	link(r, ga)
	if err := r.Directory(ga, wire.LinkDirectory{Full: true, Added: []string{"hubby"}}); err == nil {
		t.Fatal("a claim on the hub's own handle was taken")
	}
	if r.Holder("hubby") != "" {
		t.Fatal("a box holds the hub's own handle")
	}
	err := r.Directory(ga, wire.LinkDirectory{Full: true, Added: []string{"a", "b", "c", "d", "e"}})
	if err == nil || !strings.Contains(err.Error(), "2 of ga's claims were refused") || !strings.Contains(err.Error(), "the 3 handles a link may hold") {
		t.Fatalf("five claims with a cap of three = %v, want the rest refused", err)
	}
	if len(r.held[ga]) != 3 {
		t.Fatalf("ga holds %d handles, want 3", len(r.held[ga]))
	}
	flood := make([]string, MaxChange+1)
	for i := range flood {
		flood[i] = fmt.Sprintf("h%d", i)
	}
	if err := r.Directory(ga, wire.LinkDirectory{Added: flood}); err == nil || !strings.Contains(err.Error(), "refused whole") {
		t.Fatalf("an event of %d handles = %v, want it refused whole", len(flood), err)
	}
}

// TestHoldsWaitsForTheDirectory: a forward made right after a join may reach the
// hub before the directory update that names its sender.
func TestHoldsWaitsForTheDirectory(t *testing.T) {
	r := newRouter(t)
	ga := newBox("ga", files)
	link(r, ga)
	if r.Holds(context.Background(), ga, "alice", 50*time.Millisecond) {
		t.Fatal("ga holds alice before it said so")
	}
	held := make(chan bool, 1)
	go func() { held <- r.Holds(context.Background(), ga, "alice", 5*time.Second) }()
	testutil.Eventually(t, 5*time.Second, "Holds to wait for alice", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		q := r.quiet[ga]
		return q != nil && q.parked["alice"] == 1
	})
	r.Directory(ga, wire.LinkDirectory{Added: []string{"alice"}})
	if !<-held {
		t.Fatal("Holds did not see the directory update that came while it waited")
	}
}

func TestOffersThatFindNoSlotInTimeAreNamed(t *testing.T) {
	r := New(Config{Wait: 100 * time.Millisecond, MaxOffers: 1})
	t.Cleanup(r.Wait)
	link(r, newBox("ga", silent), newBox("gb", silent))
	_, err := r.Offer(context.Background(), req("bob"), nil)
	if err == nil || !strings.Contains(err.Error(), "did not answer within 0.1s; @bob may still be filed") {
		t.Fatalf("Offer = %v, want a silent box named", err)
	}
	if re, _ := wire.RefusalOf(err); re.Code != wire.CodeNoAnswer {
		t.Fatalf("code %q, want %q", re.Code, wire.CodeNoAnswer)
	}
}

func TestAHandleNoBoxHoldsIsOfferedOnceUntilTheDirectoryChanges(t *testing.T) {
	r := newRouter(t)
	ga, gb := newBox("ga", notHere), newBox("gb", notHere)
	link(r, ga, gb)
	offer := func(want string) {
		t.Helper()
		if res, err := r.Offer(context.Background(), req("bob"), nil); err == nil || err.Error() != want {
			t.Fatalf("Offer = %+v, %v; want %q", res, err, want)
		}
	}
	offer("no box knows that handle: bob")
	offer("no box knows that handle: bob")
	r.Wait()
	if len(ga.asked()) != 1 || len(gb.asked()) != 1 {
		t.Fatalf("ga was offered @bob %d times and gb %d; want once each: every box said not_here", len(ga.asked()), len(gb.asked()))
	}
	// A directory event may name the handle: every box is asked again.
	r.Directory(gb, wire.LinkDirectory{Full: true, Added: []string{"other"}})
	offer("no box knows that handle: bob")
	// So may a link that comes up.
	gc := newBox("gc", files)
	link(r, gc)
	if res, err := r.Offer(context.Background(), req("bob"), nil); err != nil || !res.OK {
		t.Fatalf("Offer after gc linked = %+v, %v; want gc's ok", res, err)
	}
	r.Wait()
	if len(ga.asked()) != 3 || len(gc.asked()) != 1 {
		t.Fatalf("ga was offered @bob %d times and gc %d; want 3 and 1", len(ga.asked()), len(gc.asked()))
	}
}

// The negative cache answers for UnheldFor and no longer: a handle a box took
// without its directory saying so yet (a box that keeps no complete
// directory) is offered again once that is over.
func TestTheNegativeCacheLastsUnheldFor(t *testing.T) {
	c := testutil.NewClock(time.Now())
	r := New(Config{Wait: testWait, Now: c.Now})
	t.Cleanup(r.Wait)
	ga := newBox("ga", notHere)
	link(r, ga)
	for _, step := range []struct {
		after time.Duration
		asked int
	}{{0, 1}, {UnheldFor - time.Nanosecond, 1}, {time.Nanosecond, 2}} {
		c.Add(step.after)
		if _, err := r.Offer(context.Background(), req("bob"), nil); err == nil || err.Error() != "no box knows that handle: bob" {
			t.Fatalf("Offer = %v; want no box knows", err)
		}
		r.Wait()
		if n := len(ga.asked()); n != step.asked {
			t.Fatalf("%s on, ga was offered @bob %d times; want %d", step.after, n, step.asked)
		}
	}
}

func TestASilentBoxKeepsAHandleOutOfTheNegativeCache(t *testing.T) {
	r := newRouter(t)
	ga, gb := newBox("ga", notHere), newBox("gb", silent)
	link(r, ga, gb)
	for range 2 {
		if _, err := r.Offer(context.Background(), req("bob"), nil); err == nil || !strings.Contains(err.Error(), "did not answer") {
			t.Fatalf("Offer = %v; want gb named as silent", err)
		}
	}
	r.Wait()
	if len(ga.asked()) != 2 {
		t.Fatalf("ga was offered @bob %d times, want 2: a box that gave no answer may hold it", len(ga.asked()))
	}
}

// The cached not_here still names the boxes that are not linked, without
// reading hosts.toml again for each line: with 200 boxes in it that read was
// most of the hub's CPU for mail to a handle no box holds.
func TestTheNegativeCacheKeepsItsNotLinkedBoxes(t *testing.T) {
	var reads atomic.Int64
	r := New(Config{Wait: testWait, ShouldLink: func() []string {
		reads.Add(1)
		return []string{"ga", "gb", "gc"}
	}})
	t.Cleanup(r.Wait)
	ga, gb := newBox("ga", notHere), newBox("gb", notHere)
	link(r, ga, gb)
	const want = "no linked box knows that handle: bob; not linked: gc"
	for range 3 {
		if _, err := r.Offer(context.Background(), req("bob"), nil); err == nil || err.Error() != want {
			t.Fatalf("Offer = %v; want %q", err, want)
		}
	}
	if n := reads.Load(); n != 1 {
		t.Fatalf("hosts.toml was read %d times for three lines to one unheld handle; want once", n)
	}
	// A link that ends is a box the answer must now name.
	r.Remove(gb)
	if _, err := r.Offer(context.Background(), req("bob"), nil); err == nil || err.Error() != "no linked box knows that handle: bob; not linked: gb, gc" {
		t.Fatalf("Offer after gb's link ended = %v; want gb named as not linked", err)
	}
	r.Wait()
	if len(ga.asked()) != 2 {
		t.Fatalf("ga was offered @bob %d times; want 2: once, and again after gb's link ended", len(ga.asked()))
	}
}

// A handle whose holder's link ended stays that box's for KeptFor: a box that
// claims it in a loop gets it only once that is over.
func TestAHandleIsKeptForItsBoxOnlyForKeptFor(t *testing.T) {
	c := testutil.NewClock(time.Now())
	r := New(Config{Wait: testWait, Now: c.Now})
	gb, gm := newBox("gb", files), newBox("gm", files)
	link(r, gb, gm)
	if err := r.Directory(gb, wire.LinkDirectory{Full: true, Added: []string{"bob"}}); err != nil {
		t.Fatal(err)
	}
	close(gb.done)
	r.Remove(gb)
	if err := r.Directory(gm, wire.LinkDirectory{Added: []string{"bob"}}); err == nil {
		t.Fatal("gm took bob the moment gb's link ended; want it kept for gb")
	}
	c.Add(KeptFor - time.Nanosecond)
	if err := r.Directory(gm, wire.LinkDirectory{Added: []string{"bob"}}); err == nil {
		t.Fatal("gm took bob just before KeptFor was over; want it kept for gb")
	}
	c.Add(time.Nanosecond)
	if err := r.Directory(gm, wire.LinkDirectory{Added: []string{"bob"}}); err != nil {
		t.Fatalf("gm's claim on bob once KeptFor was over = %v; want it taken", err)
	}
	if h := r.Holder("bob"); h != "gm" {
		t.Fatalf("bob's holder = %q, want gm", h)
	}
}

// A derived handle (<folder>-<box>) is claimable only by the box it names.
func TestADerivedHandleIsOnlyItsBoxs(t *testing.T) {
	boxes := []string{"hb", "boxb", "gm", "x-boxb", "Odd Box"}
	for _, tc := range []struct {
		handle, claimant, want string // want: the box it names, "" when the claim stands
	}{
		{"proj-boxb", "gm", "boxb"},
		{"proj-boxb", "boxb", ""},
		{"proj-parent-boxb", "gm", "boxb"},
		{"proj-hb", "gm", "hb"},
		{"proj-gm", "gm", ""},
		{"proj-x-boxb", "x-boxb", ""},
		{"proj-" + registry.HostPart("Odd Box"), "gm", "Odd Box"},
		{"mallory", "gm", ""},
		{"boxb", "gm", ""},
	} {
		var memo derivedMemo
		if got := derivedFor(tc.handle, tc.claimant, memo.of(boxes)); got != tc.want {
			t.Errorf("derivedFor(%q, %q) = %q, want %q", tc.handle, tc.claimant, got, tc.want)
		}
	}
}

// The derived suffixes are made again when hosts.toml's boxes change: a box
// added since is one whose derived handles no other box may claim, and a box
// removed is one no longer guarded.
func TestDerivedSuffixesFollowTheBoxes(t *testing.T) {
	var memo derivedMemo
	for i, step := range []struct {
		boxes []string
		want  string // the box proj-boxb names, claimed by gm
	}{
		{[]string{"hb", "gm"}, ""},
		{[]string{"hb", "gm", "boxb"}, "boxb"},
		{[]string{"hb", "gm", "boxb"}, "boxb"},
		{[]string{"hb", "gm"}, ""},
	} {
		if got := derivedFor("proj-boxb", "gm", memo.of(step.boxes)); got != step.want {
			t.Errorf("step %d, boxes %v: derivedFor(proj-boxb, gm) = %q, want %q", i, step.boxes, got, step.want)
		}
	}
}
