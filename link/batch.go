package link

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// Bounds on gathering comm.file requests into comm.file.batch calls.
const (
	// batchCalls bounds the batch calls in flight at once on one link, each
	// for batchSlow at most: while they are out, the requests made meanwhile
	// wait and go together in the next, so a burst is gathered by its own
	// round trips. Two: a batch held up by one slow request leaves the link a
	// call, and
	// under load each batch is twice what four calls would make it, which
	// halves each hop's work per line that is paid per call (measured with
	// BenchmarkCrossBoxAlone in package daemon: about 150 µs of CPU a line at
	// 64 senders, against 190–230 with four).
	batchCalls = 2
	// batchItems bounds the requests one batch carries.
	batchItems = 64
	// batchBytes bounds one batch's encoded requests (by encodedBound), well
	// under wire.MaxFrame; a request that may be larger goes alone as comm.file.
	batchBytes = wire.MaxFrame / 2
	// batchGrace is what a batch call waits past its requests' deadlines.
	batchGrace = 100 * time.Millisecond
	// batchSlow is how long a batch call holds one of the link's batchCalls:
	// one still out after that (an item waits for an inbox lock, or for a box
	// that does not answer) waits on aside, and the requests made meanwhile
	// go in the next batch rather than wait behind it. A group commit answers
	// well within it, so a burst is still gathered by its round trips.
	batchSlow = 200 * time.Millisecond
)

// filing gathers the comm.file requests made on one link.
type filing struct {
	mu     sync.Mutex
	queue  []*queued
	calls  int  // batch calls in flight, each by its own sender goroutine
	single bool // the peer refused comm.file.batch: each request goes alone
}

type queued struct {
	ctx      context.Context
	req      wire.CommFile
	size     int        // encodedBound(req)
	done     chan filed // buffered: a sender never waits on a caller that gave up
	answered atomic.Bool
}

// answer hands the request its answer, the first one only: an item answered
// ahead of its batch (comm.file.items) is answered again by the batch.
func (q *queued) answer(f filed) {
	if q.answered.CompareAndSwap(false, true) {
		q.done <- f
	}
}

// batchOf is a comm.file.batch request as its sender encodes it, in one
// Marshal: wire.CommFileBatch's JSON, whose requests a receiver decodes one by
// one.
type batchOf struct {
	Requests []wire.CommFile `json:"requests"`
}

// encodedBound is at least the length of req's JSON: no string byte takes more
// than the six of a \u00XX escape, and the field names and punctuation are
// under 128 bytes. The request is encoded once, with its batch, by the
// batch's sender.
func encodedBound(req wire.CommFile) int {
	return 128 + 6*(len(req.From)+len(req.To)+len(req.Text)+len(req.Repo)+len(req.ID))
}

type filed struct {
	res wire.CommFiled
	err error
}

// File sends one comm.file request over the link and answers with the peer's
// own answer to it, as Call would. The requests made while earlier ones are
// still out are gathered into one comm.file.batch call (at most batchCalls at
// once on the link, a call still out after batchSlow not counted), each
// answered by its own item of the peer's answer, or, on a link whose hellos
// agreed to Items, by the peer's comm.file.items as soon as the item is
// answered; a peer that refuses the op (an older one) is sent each request
// alone from then on. ctx bounds this request alone: one that ends before its batch is sent is
// left out of it.
func (c *Conn) File(ctx context.Context, req wire.CommFile) (wire.CommFiled, error) {
	q := &queued{ctx: ctx, req: req, size: encodedBound(req), done: make(chan filed, 1)}
	f := &c.filing
	f.mu.Lock()
	switch {
	case c.ctx.Err() != nil:
		f.mu.Unlock()
		return wire.CommFiled{}, c.Err()
	case f.single || q.size > batchBytes:
		f.mu.Unlock()
		return c.fileOne(ctx, req)
	}
	f.queue = append(f.queue, q)
	if f.calls < batchCalls {
		f.calls++
		// Close takes f.mu after the link's ctx ended and before its Wait, so
		// this Add, made under f.mu with the ctx not ended, comes before it.
		c.wg.Go(c.sendBatches)
	}
	f.mu.Unlock()
	select {
	case r := <-q.done:
		return r.res, r.err
	case <-ctx.Done():
		return wire.CommFiled{}, c.unanswered(ctx, wire.OpCommFile)
	}
}

func (c *Conn) fileOne(ctx context.Context, req wire.CommFile) (wire.CommFiled, error) {
	var res wire.CommFiled
	err := c.Call(ctx, wire.OpCommFile, req, &res)
	return res, err
}

// sendBatches sends what waits, one batch at a time, until nothing does. A
// batch still out after batchSlow goes on waiting aside, so the next one is
// not held up behind it: a slow item delays no other request.
func (c *Conn) sendBatches() {
	slow := time.NewTimer(batchSlow)
	defer slow.Stop()
	for {
		batch := c.filing.take()
		if batch == nil {
			return
		}
		done := make(chan struct{})
		c.wg.Go(func() {
			defer close(done)
			c.sendBatch(batch)
		})
		slow.Reset(batchSlow)
		select {
		case <-done:
		case <-slow.C:
		}
	}
}

// take removes the next batch from the queue, leaving out requests whose
// caller gave up; nil, and one sender fewer, when nothing waits.
func (f *filing) take() []*queued {
	f.mu.Lock()
	defer f.mu.Unlock()
	var batch []*queued
	size, n := 0, 0
	for ; n < len(f.queue) && len(batch) < batchItems; n++ {
		q := f.queue[n]
		if q.ctx.Err() != nil {
			continue
		}
		if len(batch) > 0 && size+q.size > batchBytes {
			break
		}
		size += q.size
		batch = append(batch, q)
	}
	f.queue = f.queue[n:]
	if len(batch) == 0 {
		f.calls--
		return nil
	}
	return batch
}

// sendBatch makes one comm.file.batch call for batch and hands each request
// its own answer. The call is bounded by the latest of its requests' own
// deadlines and a grace, so each request's own ctx ends it first and its
// caller's words say so, or by the link's end when one of them has none; and
// it is given up as soon as every one of its requests' callers gave up, so the
// peer's handler sees its ctx end as it would for a lone Call.
func (c *Conn) sendBatch(batch []*queued) {
	reqs := make([]wire.CommFile, len(batch))
	var latest time.Time
	bounded := true
	for i, q := range batch {
		reqs[i] = q.req
		d, ok := q.ctx.Deadline()
		bounded = bounded && ok
		if d.After(latest) {
			latest = d
		}
	}
	var ctx context.Context
	var cancel context.CancelFunc
	if bounded {
		ctx, cancel = context.WithDeadline(context.Background(), latest.Add(batchGrace))
	} else {
		ctx, cancel = context.WithCancel(context.Background())
	}
	defer cancel()
	var left atomic.Int64
	left.Store(int64(len(batch)))
	stops := make([]func() bool, len(batch))
	for i, q := range batch {
		stops[i] = context.AfterFunc(q.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	var res wire.CommFiledBatch
	err := c.call(ctx, wire.OpCommFileBatch, batchOf{Requests: reqs}, &res, func(env wire.Envelope) { answerAhead(batch, env) })
	// Stopped before any caller has its answer, and so ends its ctx: each
	// would otherwise run its func, in a goroutine of its own, for nothing.
	for _, stop := range stops {
		stop()
	}
	if r, ok := wire.RefusalOf(err); ok && r.Code == wire.CodeUnknownOp {
		c.log.Info("the peer does not take comm.file.batch; each request goes alone from now on")
		c.filing.mu.Lock()
		c.filing.single = true
		c.filing.mu.Unlock()
		for _, q := range batch {
			c.wg.Go(func() {
				res, err := c.fileOne(q.ctx, q.req)
				q.answer(filed{res, err})
			})
		}
		return
	}
	if err == nil && len(res.Results) != len(batch) {
		err = fmt.Errorf("%s answered %d results to %d comm.file requests; they may still be filed", c.peer, len(res.Results), len(batch))
	}
	for i, q := range batch {
		if err != nil {
			q.answer(filed{err: err})
			continue
		}
		r, e := res.Results[i].Result()
		q.answer(filed{r, e})
	}
}

// answerAhead hands the items a comm.file.items event answers to their
// requests, ahead of their batch's answer. One that does not decode, or names
// no item of the batch, is dropped: the batch's answer still answers each.
func answerAhead(batch []*queued, env wire.Envelope) {
	var its wire.FiledItems
	if wire.DecodePayload(env.Payload, &its) != nil {
		return
	}
	for _, it := range its.Items {
		if it.Index >= 0 && it.Index < len(batch) {
			r, e := it.Result()
			batch[it.Index].answer(filed{r, e})
		}
	}
}

// Items answers the items of one comm.file.batch as they finish, ahead of the
// batch's own answer (wire.OpCommFileItems), on a link whose hellos agreed to
// it; nil, whose Answer does nothing, on any other. The batch's answer must
// still hold every item: an older peer reads only that.
type Items struct {
	mu       sync.Mutex
	id       uint64 // the batch request's
	send     func(frame []byte) error
	start    time.Time          // when the batch came
	left     int                // items not yet answered
	pending  []wire.IndexedItem // answered, not yet sent
	flushing *time.Timer        // a flush is on its way: pending goes with it
}

// itemsAfter is how long into a batch its items answered so far wait to go
// ahead of it: a batch answered within it, as nearly every one is, costs no
// frame more than its answer, and one held up answers the rest by then.
const itemsAfter = 10 * time.Millisecond

type itemsKey struct{}

// BatchItems is how the handler of a comm.file.batch of n requests, given
// ctx, answers each as it finishes: nil when the link does not take it.
func BatchItems(ctx context.Context, n int) *Items {
	it, _ := ctx.Value(itemsKey{}).(*Items)
	if it == nil {
		return nil
	}
	it.mu.Lock()
	it.left = n
	it.mu.Unlock()
	return it
}

// Answer sends some items' answers ahead of the batch's, once the batch has
// run itemsAfter, with those answered meanwhile, unless they are the batch's
// last: its own answer, which follows at once, carries those. Items that
// finish together (a hub's items filed in one group commit on their box) so
// go in one frame, or none.
func (it *Items) Answer(items ...wire.IndexedItem) {
	if it == nil || len(items) == 0 {
		return
	}
	it.mu.Lock()
	defer it.mu.Unlock()
	it.left -= len(items)
	if it.left <= 0 {
		it.pending = nil
		if it.flushing != nil {
			it.flushing.Stop()
		}
		return
	}
	it.pending = append(it.pending, items...)
	if it.flushing == nil {
		it.flushing = time.AfterFunc(max(0, itemsAfter-time.Since(it.start)), it.flush)
	}
}

// flush sends the items answered and not yet sent. One lost is no loss: the
// batch's answer still answers it; one sent after it is dropped by the caller.
func (it *Items) flush() {
	it.mu.Lock()
	items := it.pending
	it.pending, it.flushing = nil, nil
	it.mu.Unlock()
	if len(items) == 0 {
		return
	}
	if frame, err := wire.EncodeFrame(it.id, wire.KindEvt, wire.OpCommFileItems, wire.FiledItems{Items: items}); err == nil {
		it.send(frame)
	}
}

// itemsCtx is ex's ctx, carrying what BatchItems needs when env is a
// comm.file.batch on a link that answers its items as they finish.
func (c *Conn) itemsCtx(ex *exchange, env wire.Envelope) context.Context {
	if !c.items || env.Op != wire.OpCommFileBatch || ex.partial == nil {
		return ex.ctx
	}
	return context.WithValue(ex.ctx, itemsKey{}, &Items{id: env.ID, send: ex.partial, start: time.Now()})
}
