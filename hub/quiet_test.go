package hub

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
)

// A link may have requests waiting for MaxParked handles at once: one for
// another handle past that is answered at once, and requests for a handle
// already waited for share its place.
func TestALinkParksRequestsForAtMostMaxParkedHandles(t *testing.T) {
	r := newRouter(t)
	gm := newBox("gm", files)
	link(r, gm)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	parked := make(chan bool, MaxParked+1)
	for i := range MaxParked {
		go func() { parked <- r.Holds(ctx, gm, fmt.Sprintf("h%02d", i), time.Minute) }()
	}
	go func() { parked <- r.Holds(ctx, gm, "h00", time.Minute) }() // shares h00's place
	testutil.Eventually(t, 5*time.Second, "MaxParked handles to be waited for", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		q := r.quiet[gm]
		return q != nil && len(q.parked) == MaxParked
	})
	start := time.Now()
	if r.Holds(ctx, gm, "one-more", time.Minute) || time.Since(start) > 5*time.Second {
		t.Fatalf("a request for one more handle waited %s; want it answered at once, not held", time.Since(start))
	}
	cancel()
	for range MaxParked + 1 {
		if <-parked {
			t.Fatal("a parked request was answered held; want not held once its ctx ended")
		}
	}
}

// One link's warning of one kind is logged once each WarnEvery, however often
// it recurs.
func TestALinksRepeatedWarningIsHeldBack(t *testing.T) {
	var logs testutil.SyncBuffer
	c := testutil.NewClock(time.Now())
	r := New(Config{Wait: testWait, Now: c.Now, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	gm := newBox("gm", files)
	link(r, gm)
	for range 1000 {
		r.Warn(gm, "the same misdeed")
	}
	c.Add(WarnEvery - time.Nanosecond)
	r.Warn(gm, "the same misdeed")
	if n := strings.Count(logs.String(), "the same misdeed"); n != 1 {
		t.Fatalf("1001 warnings within %s were logged %d times; want once", WarnEvery, n)
	}
	c.Add(time.Nanosecond)
	r.Warn(gm, "the same misdeed")
	if n := strings.Count(logs.String(), "the same misdeed"); n != 2 || !strings.Contains(logs.String(), "held_back=1000") {
		t.Fatalf("after %s, the log holds %d such warnings:\n%s\nwant a second one saying 1000 were held back", WarnEvery, n, logs.String())
	}
}
