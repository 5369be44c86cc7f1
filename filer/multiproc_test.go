package filer

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
)

// Sixteen processes append into one inbox at once: every line lands once,
// whole. 100 lines each (500 with the soak tag) keep all sixteen contending
// for the lock for most of the run.
func TestAppendManyProcesses(t *testing.T) {
	const procs = 16
	each := 100
	if testutil.Soak {
		each = 500
	}
	f, _ := newTestFilerIn(t, memDir(t))
	handle := "shared-box"
	var hs []*testutil.Helper
	for p := range procs {
		hs = append(hs, startHelper(t, "append",
			"FILER_HOME="+f.Home.Dir, "FILER_HANDLE="+handle, fmt.Sprintf("FILER_PROC=p%02d", p), fmt.Sprintf("FILER_N=%d", each)))
	}
	start := time.Now()
	for _, h := range hs {
		h.Stdin.Write([]byte("go\n"))
	}
	timeouts := 0
	for _, h := range hs {
		var n int
		fmt.Fscanf(h.Stdout, "timeouts %d\n", &n)
		timeouts += n
		if err := h.Cmd.Wait(); err != nil {
			t.Fatalf("an appender failed: %v", err)
		}
	}
	t.Logf("%d processes × %d appends in %v; %d appends waited out the %v lock bound and were retried", procs, each, time.Since(start), timeouts, InboxLockWait)

	got := decodeLines(t, readFile(t, mustPath(t, f, home.Inbox, handle)))
	if len(got) != procs*each {
		t.Fatalf("the inbox holds %d lines, want %d", len(got), procs*each)
	}
	seen := map[string]bool{}
	for _, l := range got {
		if seen[l.ID] {
			t.Fatalf("id %s filed twice", l.ID)
		}
		seen[l.ID] = true
	}
	for p := range procs {
		for i := range each {
			if id := fmt.Sprintf("p%02d-%04d", p, i); !seen[id] {
				t.Fatalf("id %s was never filed", id)
			}
		}
	}
}

// A writer killed mid-append leaves half a line; no reader counts it, and the next
// append cuts it back, logs it, and stays whole: 30 rounds, 200 with the soak
// tag, each on an inbox the rounds before left cut back and appended to.
func TestKilledWriterIsCutBack(t *testing.T) {
	rounds := 30
	if testutil.Soak {
		rounds = 200
	}
	f, logs := newTestFiler(t)
	handle := "crashy"
	path := mustPath(t, f, home.Inbox, handle)
	start := time.Now()
	for i := range rounds {
		before := fileSize(t, path)
		h := startHelper(t, "partial", "FILER_HOME="+f.Home.Dir, "FILER_HANDLE="+handle, fmt.Sprintf("FILER_ID=crash-%d", i))
		kill(t, h)
		if after := fileSize(t, path); after <= before {
			t.Fatalf("round %d: the killed writer wrote nothing (%d bytes before, %d after)", i, before, after)
		}

		b, err := f.ReadNew(handle)
		if err != nil {
			t.Fatal(err)
		}
		if b.Start != i || len(b.Lines) != 0 {
			t.Fatalf("round %d: a reader saw %d new lines after line %d; the partial must not count", i, len(b.Lines), b.Start)
		}

		res, err := f.Append(handle, []Line{line("survivor", handle, fmt.Sprintf("round %d", i), fmt.Sprintf("ok-%d", i))})
		if err != nil || res[0].Dup {
			t.Fatalf("round %d: append after the crash: %v %v", i, res, err)
		}
		b, err = f.ReadNew(handle)
		if err != nil {
			t.Fatal(err)
		}
		if b.Start != i || len(b.Lines) != 1 || !strings.Contains(string(b.Lines[0]), fmt.Sprintf(`"round %d"`, i)) {
			t.Fatalf("round %d: read %d lines after %d: %q", i, len(b.Lines), b.Start, b.Lines)
		}
		if err := f.Commit(handle, b); err != nil {
			t.Fatal(err)
		}
	}
	got := decodeLines(t, readFile(t, path))
	if len(got) != rounds {
		t.Fatalf("the inbox holds %d lines, want %d", len(got), rounds)
	}
	for i, l := range got {
		if l.ID != fmt.Sprintf("ok-%d", i) {
			t.Fatalf("line %d is %q, want the survivor's ok-%d", i+1, l.ID, i)
		}
	}
	if n := strings.Count(logs.String(), "cut back an unterminated last line"); n != rounds {
		t.Fatalf("logged %d cut-backs, want %d:\n%s", n, rounds, logs)
	}
	t.Logf("%d kill -9 rounds in %v", rounds, time.Since(start))
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// A lock another process holds past the wait: the writer gives up with the
// protocol's sentence, the reader with ErrBusy, and neither touched the inbox.
func TestLockHeldByAnotherProcess(t *testing.T) {
	f, _ := newTestFiler(t)
	handle := "busy-one"
	if _, err := f.Append(handle, []Line{line("a", handle, "before", "")}); err != nil {
		t.Fatal(err)
	}
	f.LockWait, f.ReadWait = 500*time.Millisecond, 300*time.Millisecond
	h := startHelper(t, "hold", "FILER_HOME="+f.Home.Dir, "FILER_HANDLE="+handle)

	tests := []struct {
		name string
		wait time.Duration
		want error
		text string
		run  func() error
	}{
		{"append", f.LockWait, ErrLockTimeout, "the inbox lock for @busy-one was held for 0.5s — nothing was appended", func() error {
			_, err := f.Append(handle, []Line{line("a", handle, "never", "")})
			return err
		}},
		{"read", f.ReadWait, ErrBusy, "the inbox for @busy-one is being written (its lock was held for 0.3s); the read cursor is unchanged, try again", func() error {
			_, err := f.ReadNew(handle)
			return err
		}},
		{"unread", f.ReadWait, ErrBusy, "", func() error {
			_, err := f.Unread(handle)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			err := tt.run()
			took := time.Since(start)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if tt.text != "" && err.Error() != tt.text {
				t.Fatalf("sentence\n got %q\nwant %q", err, tt.text)
			}
			if took < tt.wait || took > tt.wait+time.Second {
				t.Fatalf("gave up after %v, want about %v", took, tt.wait)
			}
		})
	}
	if got := decodeLines(t, readFile(t, mustPath(t, f, home.Inbox, handle))); len(got) != 1 {
		t.Fatalf("the inbox holds %d lines, want the 1 from before", len(got))
	}

	// Released, the lock is taken at once.
	h.Stdin.Close()
	h.Cmd.Wait()
	if _, err := f.Append(handle, []Line{line("a", handle, "after", "")}); err != nil {
		t.Fatal(err)
	}
}

// A waiter takes the lock soon after the holder lets go, within the bound.
func TestLockWaitEndsOnRelease(t *testing.T) {
	f, _ := newTestFiler(t)
	handle := "handoff"
	h := startHelper(t, "hold", "FILER_HOME="+f.Home.Dir, "FILER_HANDLE="+handle)
	go func() {
		time.Sleep(200 * time.Millisecond)
		h.Stdin.Close()
	}()
	start := time.Now()
	if _, err := f.Append(handle, []Line{line("a", handle, "waited", "")}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 200*time.Millisecond || took > 1500*time.Millisecond {
		t.Fatalf("the append took %v; want it to follow the release at 200ms", took)
	}
}
