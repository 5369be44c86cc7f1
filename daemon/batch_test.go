package daemon

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/wire"
)

// TestBatcher holds bob's inbox lock while requests pile up behind the first, so
// how many appends carry them is known exactly: group commit files the pile in
// one, per-line filing in one each, and a full queue refuses the overflow.
func TestBatcher(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		maxBatch    int
		maxWait     int
		requests    int
		msgBytes    int // each line's message size; 0 for a short one
		wantAppends int64
		wantBusy    int
	}{
		{name: "group commit", maxBatch: 256, maxWait: 1024, requests: 64, wantAppends: 2},
		{name: "batches are capped", maxBatch: 16, maxWait: 1024, requests: 49, wantAppends: 4},
		{name: "batches are capped by bytes", maxBatch: 256, maxWait: 1024, requests: 9, msgBytes: maxBatchBytes / 4, wantAppends: 3},
		{name: "per line", maxBatch: 1, maxWait: 1024, requests: 16, wantAppends: 16},
		{name: "a full queue refuses", maxBatch: 256, maxWait: 8, requests: 12, wantAppends: 2, wantBusy: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			f := filer.New(h)
			f.LockWait = 10 * time.Second
			var appends atomic.Int64
			b := newBatcher(tc.maxBatch, tc.maxWait, slog.New(slog.DiscardHandler), func(handle string, lines []filer.Line) ([]filer.Result, error) {
				appends.Add(1)
				return f.Append(handle, lines)
			})
			release := holdInboxLock(t, h, "bob")
			var wg sync.WaitGroup
			var busy atomic.Int64
			file := func(i int) {
				defer wg.Done()
				msg := fmt.Sprint(i)
				if tc.msgBytes > 0 {
					msg = strings.Repeat(".", tc.msgBytes)
				}
				err := b.fileAll("bob", []filer.Line{{From: "alice", To: "bob", Msg: msg, TS: "2026-05-29T18:04:00Z", ID: fmt.Sprintf("B-%03d", i)}})[0].err
				var re *wire.Refusal
				switch {
				case errors.As(err, &re) && re.Code == wire.CodeFileFailed && strings.Contains(re.Sentence, "is busy"):
					busy.Add(1)
				case err != nil:
					t.Errorf("request %d: %v", i, err)
				}
			}
			// The first request is taken at once and waits for the lock; the
			// rest queue behind it.
			wg.Add(1)
			go file(0)
			waitFor(t, "the first append to start", func() bool { return appends.Load() == 1 })
			for i := 1; i < tc.requests; i++ {
				wg.Add(1)
				go file(i)
			}
			queued := min(tc.requests-1, tc.maxWait)
			waitFor(t, "the requests to queue", func() bool {
				b.mu.Lock()
				defer b.mu.Unlock()
				return len(b.queues["bob"]) == queued && int(busy.Load()) == tc.wantBusy
			})
			release()
			wg.Wait()
			b.wait()
			if got := appends.Load(); got != tc.wantAppends {
				t.Errorf("%d appends, want %d", got, tc.wantAppends)
			}
			if got := int(busy.Load()); got != tc.wantBusy {
				t.Errorf("%d refused as busy, want %d", got, tc.wantBusy)
			}
			r := &rig{home: h}
			if got, want := len(r.inbox(t, "bob")), tc.requests-tc.wantBusy; got != want {
				t.Errorf("bob's inbox holds %d lines, want %d", got, want)
			}
			b.mu.Lock()
			defer b.mu.Unlock()
			if len(b.queues) != 0 {
				t.Errorf("an idle batcher still has queues: %v", b.queues)
			}
		})
	}
}
