package client

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// A broadcast's copies go out at once, not one by one: one at a time, a box
// holding 200 live handles that never answers held the copies to everyone after
// them for minutes, and 5,000 local copies took their 5,000 fsyncs in turn.
const (
	copiesAtOnce = 32 // copies in flight in all: fsyncs of distinct inboxes overlap
	copiesPerBox = 4  // in flight to any one box, so a silent box holds no more of them
	// copiesHere is how many copies this client appends itself at once. They
	// wait for no box, only for an inbox lock (bounded by its wait), so the
	// per-box bound would only serialise them: a broadcast to 5,000 local
	// sessions took 4 at a time.
	copiesHere = 16
)

// fileAll files every request and returns each one's line, in reqs' order.
// The copies this client appends itself are filed by copiesHere workers; each
// other box's copies by copiesPerBox workers of its own, and at most
// copiesAtOnce copies are in flight in all, so a box that never answers holds
// only its own copies. The whole broadcast answers by deadline: a copy that has
// not started by then is not sent, and one handed to the daemon is given up at
// it.
func (r *router) fileAll(reqs []wire.CommFile, boxOf func(handle string) string, deadline time.Time) []string {
	r.canAppend() // decided once, before the copies share the router
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	var here []int
	byBox := map[string][]int{}
	for i, req := range reqs {
		if r.appendsHere(req) {
			here = append(here, i)
			continue
		}
		b := boxOf(req.To)
		byBox[b] = append(byBox[b], i)
	}
	lines := make([]string, len(reqs))
	all := make(chan struct{}, copiesAtOnce)
	var wg sync.WaitGroup
	file := func(queue []int, workers int) {
		next := make(chan int, len(queue))
		for _, i := range queue {
			next <- i
		}
		close(next)
		for range min(workers, len(queue)) {
			wg.Go(func() {
				for i := range next {
					lines[i] = r.fileCopy(ctx, all, reqs[i])
				}
			})
		}
	}
	file(here, copiesHere)
	for _, queue := range byBox {
		file(queue, copiesPerBox)
	}
	wg.Wait()
	return lines
}

// fileCopy files one copy once a place among all is free, unless ctx ends
// first.
func (r *router) fileCopy(ctx context.Context, all chan struct{}, req wire.CommFile) string {
	select {
	case all <- struct{}{}:
		defer func() { <-all }()
		if ctx.Err() == nil { // select takes either case when both are ready
			return r.fileWithin(ctx, req)
		}
	case <-ctx.Done():
	}
	return fmt.Sprintf("FAILED -> @%s: the broadcast's time ran out before this copy was sent; nothing was sent to @%s", req.To, req.To)
}
