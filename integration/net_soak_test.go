package integration

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/wire"
)

// TestCrossBoxSendsAcrossHubRestarts sends 5,000 lines (600 without the soak tag) from ga to bob on gb
// through the hub while the hub is restarted twice, once killed with SIGKILL and
// once stopped with SIGTERM. A sender sends a line again, under its id, until it
// is answered filed, as a person retrying a FAILED send would. Every line must
// be in bob's inbox exactly once, and no answer may take hung or longer.
func TestCrossBoxSendsAcrossHubRestarts(t *testing.T) {
	t.Parallel()
	const senders = 16
	total := 600
	if testutil.Soak {
		total = 5000
	}
	n := newNetwork(t, "ga", "gb")
	n.linkAll("ga", "gb")
	n.start("ga", "gb")
	ga, gb := n.boxes["ga"], n.boxes["gb"]
	ga.must("alice", "join")
	gb.must("bob", "join")

	var filed, tries, slow atomic.Int64
	var maxTook atomic.Int64
	restarts := map[int64]func(){
		int64(total) * 3 / 10: n.killHub,
		int64(total) * 7 / 10: func() { n.daemons["hb"].stop(t) },
	}
	next := make(chan int64, senders)
	var restarter sync.WaitGroup
	restarter.Go(func() {
		for k := range next {
			if stop, ok := restarts[k]; ok {
				start := time.Now()
				stop()
				n.startHub()
				t.Logf("the hub restarted after %d lines filed (down %s)", k, time.Since(start).Round(time.Millisecond))
			}
		}
	})

	ids := make(chan string, total)
	var wg sync.WaitGroup
	for i := range senders {
		wg.Go(func() {
			c := ga.dial("alice")
			for j := i; j < total; j += senders {
				req := wire.CommFile{From: "alice", To: "bob", Text: "soak", ID: mail.NewID()}
				for {
					tries.Add(1)
					start := time.Now()
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					var res wire.CommFiled
					err := c.Call(ctx, wire.OpCommFile, req, &res)
					cancel()
					took := time.Since(start)
					for m := maxTook.Load(); int64(took) > m && !maxTook.CompareAndSwap(m, int64(took)); m = maxTook.Load() {
					}
					if took >= hung {
						slow.Add(1)
					}
					if err == nil && res.OK {
						break
					}
					time.Sleep(50 * time.Millisecond)
				}
				ids <- req.ID
				next <- filed.Add(1)
			}
		})
	}
	wg.Wait()
	close(next)
	restarter.Wait()
	close(ids)

	inbox := gb.inboxIDs("bob")
	for id := range ids {
		if inbox[id] != 1 {
			t.Errorf("line %s, answered filed, is in bob's inbox %d times", id, inbox[id])
		}
	}
	if len(inbox) != total {
		t.Errorf("bob's inbox holds %d distinct lines, want %d", len(inbox), total)
	}
	if slow.Load() > 0 {
		t.Errorf("%d answers took %s or longer", slow.Load(), hung)
	}
	t.Logf("%d lines filed in %d tries; the slowest answer took %s", filed.Load(), tries.Load(), time.Duration(maxTook.Load()).Round(time.Millisecond))
}
