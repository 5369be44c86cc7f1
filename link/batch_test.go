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

func (f *filer) handle(_ context.Context, _ *Conn, op string, payload json.RawMessage) (any, error) {
	one := func(raw json.RawMessage) (wire.CommFiled, error) {
		var req wire.CommFile
		if err := wire.DecodePayload(raw, &req); err != nil {
			return wire.CommFiled{}, err
		}
		if strings.HasPrefix(req.To, "no-") {
			return wire.CommFiled{}, wire.Refuse(wire.CodeNoLiveSession, "no live session holds @%s", req.To)
		}
		return wire.CommFiled{OK: true, To: req.To}, nil
	}
	switch {
	case op == wire.OpCommFile:
		f.singles.Add(1)
		return one(payload)
	case op == wire.OpCommFileBatch && f.batch:
		f.calls.Add(1)
		time.Sleep(f.delay) // a group commit's fsync: the next batch gathers meanwhile
		var b wire.CommFileBatch
		if err := wire.DecodePayload(payload, &b); err != nil {
			return nil, err
		}
		res := wire.CommFiledBatch{Results: make([]wire.FiledItem, len(b.Requests))}
		for i, raw := range b.Requests {
			res.Results[i] = wire.ItemOf(one(raw))
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
