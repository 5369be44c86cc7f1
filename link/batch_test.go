package link

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

	"github.com/sotcomm/sotd/wire"
)

// filer answers comm.file and comm.file.batch as a daemon would, each request
// on its own: ok, or a refusal for a handle that starts with "no-". It counts
// the frames of each op; batch false answers comm.file.batch as an older peer
// does, unknown_op.
type filer struct {
	batch          bool
	delay          time.Duration
	singles, calls atomic.Int64 // comm.file frames; comm.file.batch frames
}

// one answers one comm.file request: ok, or a refusal for a handle that
// starts with "no-".
func one(req wire.CommFile) (wire.CommFiled, error) {
	if strings.HasPrefix(req.To, "no-") {
		return wire.CommFiled{}, wire.Refuse(wire.CodeNoLiveSession, "no live session holds @%s", req.To)
	}
	return wire.CommFiled{OK: true, To: req.To}, nil
}

func oneOf(raw json.RawMessage) (wire.CommFiled, error) {
	var req wire.CommFile
	if err := wire.DecodePayload(raw, &req); err != nil {
		return wire.CommFiled{}, err
	}
	return one(req)
}

func (f *filer) handle(_ context.Context, _ *Conn, op string, payload json.RawMessage) (any, error) {
	switch {
	case op == wire.OpCommFile:
		f.singles.Add(1)
		return oneOf(payload)
	case op == wire.OpCommFileBatch && f.batch:
		f.calls.Add(1)
		time.Sleep(f.delay) // a group commit's fsync: the next batch gathers meanwhile
		var b wire.CommFileBatch
		if err := wire.DecodePayload(payload, &b); err != nil {
			return nil, err
		}
		res := wire.CommFiledBatch{Results: make([]wire.FiledItem, len(b.Requests))}
		for i, raw := range b.Requests {
			res.Results[i] = wire.ItemOf(oneOf(raw))
		}
		return res, nil
	}
	return nil, &wire.Refusal{Op: op, Code: wire.CodeUnknownOp, Sentence: "unknown op: " + op}
}

// fileAll makes n File calls at once over g and checks each got its own answer.
func fileAll(t *testing.T, g *Conn, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			to := fmt.Sprintf("h%03d", i)
			if i%5 == 0 {
				to = "no-" + to
			}
			res, err := g.File(ctx, wire.CommFile{From: "a", To: to, Text: "hi", ID: fmt.Sprintf("ID%03d", i)})
			r, refused := wire.RefusalOf(err)
			switch {
			case strings.HasPrefix(to, "no-") && (!refused || r.Code != wire.CodeNoLiveSession || r.Sentence != "no live session holds @"+to):
				t.Errorf("File to %s = %+v, %v; want its own refusal", to, res, err)
			case !strings.HasPrefix(to, "no-") && (err != nil || !res.OK || res.To != to):
				t.Errorf("File to %s = %+v, %v; want its own ok", to, res, err)
			}
		})
	}
	wg.Wait()
}

func TestFileGathersRequestsMadeAtOnce(t *testing.T) {
	const n = 150
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			f := &filer{batch: true, delay: 20 * time.Millisecond}
			_, g, _ := pair(t, tr.dial, Config{Handler: f.handle}, Config{})
			fileAll(t, g, n)
			// At most batchCalls go out before the rest has queued; the rest
			// go batchItems at a time.
			if calls, most := f.calls.Load(), int64(batchCalls+n/batchItems+batchCalls); calls > most || f.singles.Load() != 0 {
				t.Fatalf("%d requests went in %d batches and %d alone; want at most %d batches and none alone", n, calls, f.singles.Load(), most)
			}
		})
	}
}

func TestFileSendsEachAloneToAPeerWithoutBatches(t *testing.T) {
	f := &filer{}
	_, g, _ := pair(t, dialQUIC, Config{Handler: f.handle}, Config{})
	fileAll(t, g, 40)
	fileAll(t, g, 40)
	if got := f.singles.Load(); got != 80 {
		t.Fatalf("the older peer got %d comm.file requests, want all 80", got)
	}
}

func TestFileIsBoundedByItsOwnCtx(t *testing.T) {
	release, gaveUp := make(chan struct{}), make(chan struct{}, 1)
	h := func(ctx context.Context, _ *Conn, op string, payload json.RawMessage) (any, error) {
		select {
		case <-release:
		case <-ctx.Done():
			gaveUp <- struct{}{}
		}
		return wire.CommFiledBatch{Results: []wire.FiledItem{{CommFiled: wire.CommFiled{OK: true}}}}, nil
	}
	_, g, _ := pair(t, dialQUIC, Config{Handler: h}, Config{})
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := g.File(ctx, wire.CommFile{From: "a", To: "bob", Text: "hi"})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "comm.file got no answer") || time.Since(start) > 2*time.Second {
		t.Fatalf("File with a 100ms ctx = %v after %s; want its ctx's end", err, time.Since(start))
	}
	// Its batch had no other request: the peer sees the call given up.
	select {
	case <-gaveUp:
	case <-time.After(2 * time.Second):
		t.Fatal("the peer's handler still ran 2s after the batch's only caller gave up")
	}
}

// A batch held up by one slow request (an offer to a box that does not answer,
// an inbox lock held long) keeps a call, not the link: the requests made
// meanwhile go in another batch and are answered while it waits.
func TestFileGoesOnBesideABatchThatWaits(t *testing.T) {
	release, stuck := make(chan struct{}), make(chan struct{})
	f := &filer{batch: true}
	h := func(ctx context.Context, c *Conn, op string, payload json.RawMessage) (any, error) {
		if op == wire.OpCommFileBatch && strings.Contains(string(payload), `"to":"slow"`) {
			close(stuck)
			<-release
		}
		return f.handle(ctx, c, op, payload)
	}
	_, g, _ := pair(t, dialQUIC, Config{Handler: h}, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	slow := make(chan error, 1)
	go func() {
		_, err := g.File(ctx, wire.CommFile{From: "a", To: "slow", Text: "hi"})
		slow <- err
	}()
	<-stuck
	fileAll(t, g, 20)
	select {
	case err := <-slow:
		t.Fatalf("the slow request was answered (%v) before its handler was let go", err)
	default:
	}
	close(release)
	if err := <-slow; err != nil {
		t.Fatalf("the slow request, let go, = %v; want ok", err)
	}
}

// A request that may encode past batchBytes goes alone as comm.file, and the
// ones made beside it still go together.
func TestFileSendsALargeRequestAlone(t *testing.T) {
	f := &filer{batch: true}
	_, g, _ := pair(t, dialQUIC, Config{Handler: f.handle}, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	large := wire.CommFile{From: "a", To: "big", Text: strings.Repeat("é", batchBytes/12+1)}
	if encodedBound(large) <= batchBytes {
		t.Fatalf("the large request's bound %d is within batchBytes %d", encodedBound(large), batchBytes)
	}
	if res, err := g.File(ctx, large); err != nil || !res.OK {
		t.Fatalf("File of a large request = %+v, %v; want ok", res, err)
	}
	fileAll(t, g, 20)
	if f.singles.Load() != 1 || f.calls.Load() == 0 {
		t.Fatalf("%d requests went alone and %d batches; want the large one alone and the rest batched", f.singles.Load(), f.calls.Load())
	}
}

// slowFiler answers comm.file.batch item by item as a hub does, each in its
// own goroutine and, on a link that takes it, each as it finishes
// (BatchItems): an item for "slow" waits until release closes, and says so on
// stuck as it starts.
type slowFiler struct {
	release chan struct{}
	stuck   chan string
}

func newSlowFiler(t *testing.T) *slowFiler {
	f := &slowFiler{release: make(chan struct{}), stuck: make(chan string, 64)}
	t.Cleanup(func() { close(f.release) })
	return f
}

func (f *slowFiler) handle(ctx context.Context, _ *Conn, op string, payload json.RawMessage) (any, error) {
	if op != wire.OpCommFileBatch {
		return nil, &wire.Refusal{Op: op, Code: wire.CodeUnknownOp, Sentence: "unknown op: " + op}
	}
	var b wire.CommFileBatch
	if err := wire.DecodePayload(payload, &b); err != nil {
		return nil, err
	}
	ahead := BatchItems(ctx, len(b.Requests))
	items := make([]wire.FiledItem, len(b.Requests))
	var wg sync.WaitGroup
	for i, raw := range b.Requests {
		wg.Go(func() {
			var req wire.CommFile
			if err := wire.DecodePayload(raw, &req); err != nil {
				items[i] = wire.ItemOf(wire.CommFiled{}, err)
				return
			}
			if req.To == "slow" {
				f.stuck <- req.ID
				select {
				case <-f.release:
				case <-ctx.Done():
				}
			}
			items[i] = wire.ItemOf(one(req))
			ahead.Answer(wire.IndexedItem{Index: i, FiledItem: items[i]})
		})
	}
	wg.Wait()
	return wire.CommFiledBatch{Results: items}, nil
}

// A batch's items are answered as each finishes, on a link whose hellos
// agreed to Items, over either transport: a request gathered with one that
// waits is answered at once, not when the batch is.
func TestABatchAnswersEachItemAsItFinishes(t *testing.T) {
	for _, tr := range transports {
		if tr.name == "quic-per-call" {
			continue // a stream per request carries one answer: no items ahead
		}
		t.Run(tr.name, func(t *testing.T) {
			f := newSlowFiler(t)
			_, g, _ := pair(t, tr.dial, Config{Handler: f.handle}, Config{})
			if !g.items {
				t.Fatal("the link did not agree to Items")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			slow, fast := queuedFor(ctx, "slow"), queuedFor(ctx, "fast")
			go g.sendBatch([]*queued{slow, fast})
			<-f.stuck
			select {
			case r := <-fast.done:
				if r.err != nil || !r.res.OK {
					t.Fatalf("the fast item = %+v, %v; want ok", r.res, r.err)
				}
			case <-ctx.Done():
				t.Fatal("the fast item was not answered while the slow one in its batch waited")
			}
			select {
			case r := <-slow.done:
				t.Fatalf("the slow item was answered (%+v, %v) before it was let go", r.res, r.err)
			default:
			}
		})
	}
}

func queuedFor(ctx context.Context, to string) *queued {
	req := wire.CommFile{From: "a", To: to, Text: "hi", ID: "ID-" + to}
	return &queued{ctx: ctx, req: req, size: encodedBound(req), done: make(chan filed, 1)}
}

// Requests stuck in every batch call a link may have out (two, three, four
// lines waiting on one slow holder) hold up no other: a request made after
// them is answered while they still wait.
func TestFileIsNotHeldUpBehindSlowBatches(t *testing.T) {
	t.Parallel()
	for _, pending := range []int{2, 3, 4} {
		t.Run(fmt.Sprintf("%d pending", pending), func(t *testing.T) {
			f := newSlowFiler(t)
			_, g, _ := pair(t, dialQUIC, Config{Handler: f.handle}, Config{})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			slow := make(chan error, pending)
			for i := range pending {
				go func() {
					_, err := g.File(ctx, wire.CommFile{From: "a", To: "slow", Text: "hi", ID: fmt.Sprint("ID-SLOW-", i)})
					slow <- err
				}()
				<-f.stuck // each in a batch of its own, or with another slow one
			}
			if res, err := g.File(ctx, wire.CommFile{From: "a", To: "fast", Text: "hi", ID: "ID-FAST"}); err != nil || !res.OK {
				t.Fatalf("File to fast behind %d slow = %+v, %v; want ok", pending, res, err)
			}
			select {
			case err := <-slow:
				t.Fatalf("a slow request was answered (%v) before it was let go: the fast one did not overtake it", err)
			default:
			}
		})
	}
}

// A link answers a batch's items ahead only when both hellos agree to Items:
// with an end older than that, each batch is answered whole, as before.
func TestALinkAnswersItemsAheadOnlyWhenBothEndsAgree(t *testing.T) {
	older := Config{wholeBatch: true}
	for _, tc := range []struct {
		name       string
		hub, guest Config
		want       bool
	}{{"both", Config{}, Config{}, true}, {"an older guest", Config{}, older, false}, {"an older hub", older, Config{}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newSlowFiler(t)
			tc.hub.Handler = f.handle
			hubEnd, g, _ := pair(t, dialQUIC, tc.hub, tc.guest)
			if hubEnd.items != tc.want || g.items != tc.want {
				t.Fatalf("items at the hub %v, at the guest %v; want %v at both", hubEnd.items, g.items, tc.want)
			}
			fileAll(t, g, 20) // answered whole or item by item, each its own
		})
	}
}
