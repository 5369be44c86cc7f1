package daemon

import (
	"fmt"
	"log/slog"
	"runtime"
	"sync"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/wire"
)

// maxBatchBytes bounds one append's message bytes, so a burst of large bodies is
// split into several writes; a batch always takes at least one line.
const maxBatchBytes = 4 << 20

// batcher group-commits appends. Requests for one inbox queue up; while any wait,
// one committer goroutine for that inbox takes everything waiting and files it
// with one append (one lock, one fsync), answers each request, and goes again. It
// exits as soon as its queue is empty, so an idle inbox costs nothing.
type batcher struct {
	appendLines func(handle string, lines []filer.Line) ([]filer.Result, error)
	maxBatch    int
	maxWait     int
	log         *slog.Logger

	mu sync.Mutex
	// queues holds a key for every inbox whose committer runs: the committer
	// deletes it, under mu, when it finds nothing waiting.
	queues    map[string][]*waiter
	committer sync.WaitGroup
}

type waiter struct {
	line filer.Line
	done chan outcome // buffered: the committer never waits on a request
}

type outcome struct {
	res filer.Result
	err error
}

func newBatcher(maxBatch, maxWait int, log *slog.Logger, appendLines func(string, []filer.Line) ([]filer.Result, error)) *batcher {
	return &batcher{appendLines: appendLines, maxBatch: maxBatch, maxWait: maxWait, log: log, queues: map[string][]*waiter{}}
}

// fileAll queues lines for handle's inbox at once, so that they go in one
// append unless the batch bounds split them, and returns each line's outcome
// when it is durable, or failed. A line past a full queue is refused at once,
// with nothing queued.
func (b *batcher) fileAll(handle string, lines []filer.Line) []outcome {
	out := make([]outcome, len(lines))
	ws := make([]*waiter, len(lines))
	b.mu.Lock()
	q, running := b.queues[handle]
	for i, line := range lines {
		if len(q) >= b.maxWait {
			out[i].err = wire.Refuse(wire.CodeFileFailed, "the inbox of @%s is busy: %d lines are waiting to be filed, so this one was not queued — nothing was appended; retry in a moment", handle, len(q))
			continue
		}
		ws[i] = &waiter{line: line, done: make(chan outcome, 1)}
		q = append(q, ws[i])
	}
	if len(q) > 0 {
		b.queues[handle] = q
		if !running {
			b.committer.Add(1)
			go b.commit(handle)
		}
	}
	b.mu.Unlock()
	for i, w := range ws {
		if w != nil {
			out[i] = <-w.done
		}
	}
	return out
}

// wait returns when every committer has exited, i.e. every queued request has
// been answered.
func (b *batcher) wait() { b.committer.Wait() }

func (b *batcher) commit(handle string) {
	defer b.committer.Done()
	for {
		if b.maxBatch > 1 {
			// Requests already runnable reach the queue first: on a busy box
			// they wait for CPU, not for the disk, and a batch taken without
			// them pays a whole commit (a registry look, a lock, an fsync) for
			// a line or two. With nothing else runnable the yield returns at
			// once.
			runtime.Gosched()
		}
		batch := b.take(handle)
		if batch == nil {
			return
		}
		lines := make([]filer.Line, len(batch))
		for i, w := range batch {
			lines[i] = w.line
		}
		b.log.Debug("filing a batch", "to", handle, "lines", len(lines))
		res, err := b.appendLines(handle, lines)
		if err == nil && len(res) != len(lines) {
			err = fmt.Errorf("the filer answered %d results for %d lines to @%s", len(res), len(lines), handle)
		}
		if r, ok := wire.RefusalOf(err); ok && r.Code == wire.CodeNotHere {
			// A step of routing: the line goes on to the hub or another box.
			b.log.Debug("comm.file not here", "to", handle, "lines", len(lines))
		} else if ok && r.Code != wire.CodeFileFailed {
			b.log.Info("comm.file refused", "to", handle, "lines", len(lines), "err", err)
		} else if err != nil {
			b.log.Warn("filing failed", "to", handle, "lines", len(lines), "err", err)
		}
		for i, w := range batch {
			if err != nil {
				w.done <- outcome{err: err}
			} else {
				w.done <- outcome{res: res[i]}
			}
		}
	}
}

// take removes the next batch from handle's queue: up to maxBatch lines and
// maxBatchBytes of messages. It returns nil, and forgets the queue, when nothing
// waits.
func (b *batcher) take(handle string) []*waiter {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.queues[handle]
	if len(q) == 0 {
		delete(b.queues, handle)
		return nil
	}
	n, size := 0, 0
	for n < len(q) && n < b.maxBatch && (n == 0 || size+len(q[n].line.Msg) <= maxBatchBytes) {
		size += len(q[n].line.Msg)
		n++
	}
	batch := q[:n:n]
	b.queues[handle] = q[n:]
	return batch
}
