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
	// batchCalls bounds the batch calls in flight at once on one link: while
	// they are out, the requests made meanwhile wait and go together in the
	// next, so a burst is gathered by its own round trips, never by a timer.
	// Two: a batch held up by one slow request leaves the link a call, and
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
)

// filing gathers the comm.file requests made on one link.
type filing struct {
	mu     sync.Mutex
	queue  []*queued
	calls  int  // batch calls in flight, each by its own sender goroutine
	single bool // the peer refused comm.file.batch: each request goes alone
}

type queued struct {
	ctx  context.Context
	req  wire.CommFile
	size int        // encodedBound(req)
	done chan filed // buffered: a sender never waits on a caller that gave up
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
// once on the link), each answered by its own item of the peer's answer; a
// peer that refuses the op (an older one) is sent each request alone from then
// on. ctx bounds this request alone: one that ends before its batch is sent is
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

// sendBatches sends what waits, one batch at a time, until nothing does.
func (c *Conn) sendBatches() {
	for {
		batch := c.filing.take()
		if batch == nil {
			return
		}
		c.sendBatch(batch)
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
	err := c.Call(ctx, wire.OpCommFileBatch, batchOf{Requests: reqs}, &res)
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
				q.done <- filed{res, err}
			})
		}
		return
	}
	if err == nil && len(res.Results) != len(batch) {
		err = fmt.Errorf("%s answered %d results to %d comm.file requests; they may still be filed", c.peer, len(res.Results), len(batch))
	}
	for i, q := range batch {
		if err != nil {
			q.done <- filed{err: err}
			continue
		}
		r, e := res.Results[i].Result()
		q.done <- filed{r, e}
	}
}
