package filer

import (
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

type recorder struct {
	mu                sync.Mutex
	lockWaits, fsyncs int
	filed             []int
}

func (r *recorder) LockWait(time.Duration) { r.mu.Lock(); r.lockWaits++; r.mu.Unlock() }
func (r *recorder) Fsync(time.Duration)    { r.mu.Lock(); r.fsyncs++; r.mu.Unlock() }
func (r *recorder) Filed(n int)            { r.mu.Lock(); r.filed = append(r.filed, n); r.mu.Unlock() }

// The Observer hears each lock wait and fsync, and the lines an append made
// durable, duplicates not counted; an append of duplicates alone files nothing.
func TestObserverHearsEachAppend(t *testing.T) {
	f, _ := newTestFiler(t)
	rec := &recorder{}
	f.Observer = rec
	if _, err := f.Append("me", []Line{line("a", "me", "one", "X1"), line("a", "me", "two", "")}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Append("me", []Line{line("a", "me", "one", "X1"), line("a", "me", "three", "X3")}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Append("me", []Line{line("a", "me", "one", "X1")}); err != nil {
		t.Fatal(err)
	}
	if rec.lockWaits != 3 || rec.fsyncs != 2 || len(rec.filed) != 2 || rec.filed[0] != 2 || rec.filed[1] != 1 {
		t.Fatalf("heard %d lock waits, %d fsyncs, filed %v; want 3, 2, [2 1]", rec.lockWaits, rec.fsyncs, rec.filed)
	}
}

// A client appends through the filer, so the filer must not pull the daemon's
// metrics into it.
func TestFilerDoesNotImportMetrics(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "github.com/sotcomm/sotd/metrics\n") {
		t.Fatal("package filer imports github.com/sotcomm/sotd/metrics")
	}
}
