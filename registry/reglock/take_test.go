package reglock

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/machine"
	"github.com/sotcomm/sotd/wire"
)

// TestTakeJudgesTheHolder puts one record in place as the lock and takes it with
// the heartbeat's bound (0: one try, which still reclaims). A holder proved dead
// is reclaimed through its marker after the settle and the lock retaken; any
// other fails closed naming the holder and the recovery.
func TestTakeJudgesTheHolder(t *testing.T) {
	_, me := proofHome(t)
	ppid := os.Getppid()
	live := rec(me, func(h *Holder) { h.PID, h.Start = ppid, machine.Start(ppid) })
	gone := testutil.ReapedPID(t, envHelper+"=exit")
	tests := []struct {
		name   string
		line   string                          // the lock's line, written unless make is set
		make   func(t *testing.T, path string) // puts something other than a record in place
		taken  bool
		marker bool   // a taken lock's marker is kept
		proof  string // a taken lock's proof of death
		code   string // when not taken
		want   string // the FAILED sentence, with %[1]s for the path
	}{
		{name: "exited", line: rec(me, func(h *Holder) { h.PID, h.Start = gone, "1" }).line, taken: true, marker: true, proof: "it has exited"},
		{name: "pid now names another process", line: rec(me, func(h *Holder) { h.PID, h.Start = ppid, machine.Start(ppid)+"0" }).line, taken: true, marker: true, proof: "its pid now names another process"},
		{name: "machine rebooted", line: rec(me, func(h *Holder) { h.Boot, h.PID = "00000000-0000-0000-0000-000000000000", 4343 }).line, taken: true, marker: true, proof: "its machine has rebooted since"},
		{name: "this process's own, left by a thread", line: me.line, taken: true, proof: "it is this process's own, left by one of its threads"},
		{
			name: "running", line: live.line, code: wire.CodeLockHeld,
			want: fmt.Sprintf("registry lock %%[1]s is held by testbox pid %d start %s (0s old): it is running. If it is dead, run any comm command on testbox.", ppid, live.Start),
		},
		{
			name: "another machine", line: "far:feedface:b00t:4026531836:4343:99", code: wire.CodeLockHeld,
			want: "registry lock %[1]s is held by far pid 4343 start 99 (0s old): it is on another machine. If it is dead: run any comm command on far, or, if far will not run again or a comm command there says it cannot prove a death, remove %[1]s by hand.",
		},
		{
			name: "same machine id, another host name", line: rec(me, func(h *Holder) { h.Name, h.Boot, h.PID = "twin", "other-boot", 4343 }).line, code: wire.CodeLockHeld,
			want: "it is on another machine. If it is dead: run any comm command on twin, or, if twin will not run again or a comm command there says it cannot prove a death, remove %[1]s by hand.",
		},
		{
			name: "another pid namespace", line: rec(me, func(h *Holder) { h.PIDNS, h.PID, h.Start = "4026531999", 4343, "99" }).line, code: wire.CodeLockHeld,
			want: "registry lock %[1]s is held by testbox pid 4343 start 99 (0s old): it is in another pid namespace. If it is dead: run any comm command on testbox in its pid namespace, or, if nothing will run there again or a comm command there says it cannot prove a death, remove %[1]s by hand.",
		},
		{
			name: "a container beside this one, by another name", line: rec(me, func(h *Holder) { h.Name, h.PIDNS, h.PID, h.Start = "box2", "4026531999", 4343, "99" }).line, code: wire.CodeLockHeld,
			want: "(0s old): it is in another pid namespace. If it is dead: run any comm command on box2 in its pid namespace, or",
		},
		{
			name: "no boot named", line: rec(me, func(h *Holder) { h.Boot, h.PID = "-", 4343 }).line, code: wire.CodeLockHeld,
			want: "(0s old): its record does not say which boot it ran in. If it is dead: run any comm command on testbox, or, if testbox will not run again",
		},
		{
			name: "no proof fields", line: "mac:-:-:-:4343:-", code: wire.CodeLockHeld,
			want: "registry lock %[1]s is held by mac pid 4343 start - (0s old): it was taken where no death can be proved. No box can prove mac pid 4343 dead (its record has no proof fields): if it is, remove %[1]s by hand.",
		},
		{
			name: "not a record", line: "garbage", code: wire.CodeLockByHand,
			want: "registry lock %[1]s still held (0s old): its record names no holder (garbage). If its holder is dead, remove %[1]s by hand and retry.",
		},
		{
			name: "empty", line: "", code: wire.CodeLockByHand,
			want: "registry lock %[1]s still held (0s old): its record names no holder (empty). If its holder is dead, remove %[1]s by hand and retry.",
		},
		{
			name: "an older version's directory", code: wire.CodeLockByHand,
			make: func(t *testing.T, path string) {
				if err := os.Mkdir(path, 0o700); err != nil {
					t.Fatal(err)
				}
			},
			want: "registry lock %[1]s still held (0s old): held by an older version that records no holder. If its holder is dead, remove %[1]s by hand and retry.",
		},
		{
			name: "a record that cannot be read", code: wire.CodeLockNotTaken,
			make: func(t *testing.T, path string) {
				if err := os.Symlink(path+".nowhere", path); err != nil {
					t.Fatal(err)
				}
			},
			want: "registry lock %[1]s was not taken by the deadline: its record could not be read, so it may have been released since. Retry.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, _ := proofHome(t)
			lockLine := tt.line
			if tt.make != nil {
				tt.make(t, path)
			} else {
				writeRecord(t, path, lockLine)
			}
			c := newClock()
			opt := c.opts(0)
			var proof string
			opt.Log = slog.New(onMessage{msg: "registry lock: removed a dead holder's lock", fn: func(r slog.Record) {
				r.Attrs(func(a slog.Attr) bool {
					if a.Key == "why" {
						proof = a.Value.String()
					}
					return true
				})
			}})
			l, err := Take(path, opt)
			if !tt.taken {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("Take = %v, %v; want an *Error", l, err)
				}
				want := strings.ReplaceAll(tt.want, "%[1]s", path)
				if e.Code != tt.code || !strings.Contains(e.Error(), want) {
					t.Fatalf("Take failed with %s:\n%s\nwant %s containing:\n%s", e.Code, e, tt.code, want)
				}
				if tt.make == nil && readLine(t, path) != lockLine {
					t.Fatalf("the lock changed: %q", readLine(t, path))
				}
				if markers(t, path) != 0 {
					t.Fatal("a refused take left a marker")
				}
				return
			}
			if err != nil {
				t.Fatalf("Take: %v", err)
			}
			defer l.Release()
			if got := readLine(t, path); got != me.line {
				t.Fatalf("the lock names %q, want this process %q", got, me.line)
			}
			if proof != tt.proof {
				t.Fatalf("removed as %q, want %q", proof, tt.proof)
			}
			if !slices.Contains(c.naps, Settle) {
				t.Fatalf("no settle before the removal: naps %v", c.naps)
			}
			m := path + ".reclaim." + strings.ReplaceAll(lockLine, ":", ".")
			if _, err := os.Stat(m); (err == nil) != tt.marker {
				t.Fatalf("marker %s: %v, want kept=%v", m, err, tt.marker)
			}
			if tt.marker && readLine(t, m) != me.line {
				t.Fatalf("the marker names %q, want this process", readLine(t, m))
			}
		})
	}
}

// markers counts the reclaim markers beside path.
func markers(t *testing.T, path string) int {
	t.Helper()
	entries, err := os.ReadDir(strings.TrimSuffix(path, ".registry.lock"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".registry.lock.reclaim.") {
			n++
		}
	}
	return n
}

// TestTakePollsUntilTheDeadline: a live holder is tried every 50 ms until the
// deadline, and the wait ends exactly there.
func TestTakePollsUntilTheDeadline(t *testing.T) {
	path, me := proofHome(t)
	writeRecord(t, path, rec(me, func(h *Holder) { h.PID, h.Start = os.Getppid(), machine.Start(os.Getppid()) }).line)
	c := newClock()
	start := c.Now()
	_, err := Take(path, c.opts(time.Second))
	var e *Error
	if !errors.As(err, &e) || e.Code != wire.CodeLockHeld || !strings.Contains(e.Error(), "(1s old): it is running") {
		t.Fatalf("Take = %v", err)
	}
	if len(c.naps) != 20 || slices.ContainsFunc(c.naps, func(d time.Duration) bool { return d != Poll }) {
		t.Fatalf("naps %v, want 20 of %v", c.naps, Poll)
	}
	if waited := c.Now().Sub(start); waited != time.Second {
		t.Fatalf("waited %v", waited)
	}
}

// TestTakeDuringTheSettle: what the reclaim's re-read finds after the settle.
func TestTakeDuringTheSettle(t *testing.T) {
	_, me := proofHome(t)
	ppid := os.Getppid()
	live := rec(me, func(h *Holder) { h.PID, h.Start = ppid, machine.Start(ppid) })
	dead := rec(me, func(h *Holder) { h.PID, h.Start = ppid, "1" })
	tests := []struct {
		name   string
		settle func(path string) error
		want   string // "" = taken
	}{
		{"released during the settle: retaken", os.Remove, ""},
		{
			"taken again during the settle", func(path string) error { return os.WriteFile(path, []byte(live.line+"\n"), 0o600) },
			fmt.Sprintf("is held by testbox pid %d start %s (1s old): it was taken again during the reclaim. If it is dead, run any comm command on testbox.", ppid, live.Start),
		},
		{
			"record changed during the settle", func(path string) error { return os.WriteFile(path, []byte("torn\n"), 0o600) },
			fmt.Sprintf("is held by testbox pid %d start 1 (1s old): its record changed during the reclaim. If it is dead, run any comm command on testbox.", ppid),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, _ := proofHome(t)
			writeRecord(t, path, dead.line)
			c := newClock()
			c.hook = func(d time.Duration) {
				if d == Settle {
					if err := tt.settle(path); err != nil {
						t.Error(err)
					}
				}
			}
			l, err := Take(path, c.opts(0))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				l.Release()
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Take = %v\nwant it to contain %s", err, tt.want)
			}
		})
	}
}

// TestTakeRetakeLost: a lock this wait removed and another process took before
// the retake names that process, and the step did not judge it.
func TestTakeRetakeLost(t *testing.T) {
	path, me := proofHome(t)
	ppid := os.Getppid()
	live := rec(me, func(h *Holder) { h.PID, h.Start = ppid, machine.Start(ppid) })
	writeRecord(t, path, rec(me, func(h *Holder) { h.PID, h.Start = ppid, "1" }).line)
	c := newClock()
	opt := c.opts(0)
	opt.Log = slog.New(onMessage{msg: "registry lock: removed a dead holder's lock", fn: func(slog.Record) { writeRecord(t, path, live.line) }})
	_, err := Take(path, opt)
	want := fmt.Sprintf("registry lock %s is held by testbox pid %d start %s (1s old): %s. If it is dead, run any comm command on testbox.", path, ppid, live.Start, retaken)
	if err == nil || err.Error() != want {
		t.Fatalf("Take = %v\nwant %s", err, want)
	}
}

// TestTakeReleasedSinceLastRead: a holder read at one try and not at the next
// is named as held when last read.
func TestTakeReleasedSinceLastRead(t *testing.T) {
	path, me := proofHome(t)
	ppid := os.Getppid()
	live := rec(me, func(h *Holder) { h.PID, h.Start = ppid, machine.Start(ppid) })
	writeRecord(t, path, live.line)
	c := newClock()
	c.hook = func(time.Duration) {
		// The lock now exists but has no record to read.
		if _, err := os.Readlink(path); err != nil {
			os.Remove(path)
			if err := os.Symlink(path+".nowhere", path); err != nil {
				t.Error(err)
			}
		}
	}
	_, err := Take(path, c.opts(200*time.Millisecond))
	var e *Error
	want := fmt.Sprintf("registry lock %s was held by testbox pid %d start %s when last read (it is running); it may have been released since. Retry.", path, ppid, live.Start)
	if !errors.As(err, &e) || e.Code != wire.CodeLockReleased || e.Error() != want {
		t.Fatalf("Take = %v\nwant %s", err, want)
	}
}

func TestTakeCannotLink(t *testing.T) {
	path := t.TempDir() + "/missing/.registry.lock"
	_, err := Take(path, Options{Host: testHost})
	var e *Error
	if !errors.As(err, &e) || e.Code != wire.CodeLockNoLink || !strings.Contains(e.Error(), "cannot be taken: cannot write") {
		t.Fatalf("Take = %v", err)
	}
}

func TestRuledDeadline(t *testing.T) {
	t.Setenv(EnvWait, "")
	if got := RuledDeadline(); got != Ruled {
		t.Fatalf("unset: %v", got)
	}
	t.Setenv(EnvWait, "2.5")
	if got := RuledDeadline(); got != 2500*time.Millisecond {
		t.Fatalf("2.5: %v", got)
	}
}

// BenchmarkTakeRelease is one uncontended take and release: a flushed temp
// file, a link, and the release's read and remove.
func BenchmarkTakeRelease(b *testing.B) {
	path := b.TempDir() + "/.registry.lock"
	for b.Loop() {
		l, err := Take(path, Options{Host: testHost})
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(); err != nil {
			b.Fatal(err)
		}
	}
}
