package reglock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// TestContention: two processes of two goroutines each take the lock in turn
// and write an "in" and an "out" line while holding it. Two holders at once
// would interleave them.
func TestContention(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".registry.lock")
	out := filepath.Join(filepath.Dir(path), "shared.log")
	const procs, rounds = 2, 12
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var cmds []*exec.Cmd
	for range procs {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envHelper+"=contend", envPath+"="+path, envOut+"="+out, fmt.Sprintf("%s=%d", envRounds, rounds))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("contender: %v", err)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != procs*2*rounds*2 {
		t.Fatalf("%d lines, want %d", len(lines), procs*2*rounds*2)
	}
	holders := map[string]bool{}
	for i := 0; i < len(lines); i += 2 {
		tag, _, _ := strings.Cut(lines[i], " ")
		if lines[i] != tag+" in" || lines[i+1] != tag+" out" {
			t.Fatalf("two holders at once at line %d: %q then %q", i+1, lines[i], lines[i+1])
		}
		holders[tag] = true
	}
	if len(holders) != procs*2 {
		t.Fatalf("holders %v, want %d", holders, procs*2)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock left after every release: %v", err)
	}
	if n := markers(t, path); n != 0 {
		t.Fatalf("%d markers: a live holder was reclaimed", n)
	}
}

// TestKilledHolderIsReclaimed: a SIGKILLed holder is proved dead and its lock
// reclaimed by the next taker after the real 1 s settle; its marker is kept.
func TestKilledHolderIsReclaimed(t *testing.T) {
	path, me := proofHome(t)
	h := startHolder(t, path)
	h.kill(t)
	start := time.Now()
	l, err := Take(path, Options{Host: testHost, Deadline: 5 * time.Second})
	if err != nil {
		t.Fatalf("Take after the holder was killed: %v", err)
	}
	defer l.Release()
	if took := time.Since(start); took < Settle {
		t.Fatalf("took %v, under the settle", took)
	}
	if got := readLine(t, path); got != me.line {
		t.Fatalf("lock names %q, want %q", got, me.line)
	}
	if got := readLine(t, path+".reclaim."+dotted(h.rec.line)); got != me.line {
		t.Fatalf("marker names %q", got)
	}
}

// TestLiveHolderIsNotReclaimed: a live holder in another process is never
// forced, and the FAILED line names it.
func TestLiveHolderIsNotReclaimed(t *testing.T) {
	path, _ := proofHome(t)
	h := startHolder(t, path)
	_, err := Take(path, Options{Host: testHost, Deadline: 300 * time.Millisecond})
	var e *Error
	if !errors.As(err, &e) || e.Code != wire.CodeLockHeld || e.Holder == nil || *e.Holder != h.rec.Holder {
		t.Fatalf("Take = %v", err)
	}
	want := fmt.Sprintf("registry lock %s is held by testbox pid %d start %s (", path, h.rec.PID, h.rec.Start)
	tail := "old): it is running. If it is dead, run any comm command on testbox."
	if !strings.HasPrefix(e.Error(), want) || !strings.HasSuffix(e.Error(), tail) {
		t.Fatalf("FAILED line %q\nwant %q…%q", e, want, tail)
	}
	if readLine(t, path) != h.rec.line || markers(t, path) != 0 {
		t.Fatal("a live holder's lock was touched")
	}
}

// TestClear: free, live (refused with the FAILED line's recovery), dead
// (cleared after the real settle, its marker kept).
func TestClear(t *testing.T) {
	path, _ := proofHome(t)
	msg, err := Clear(path, testHost)
	if err != nil || msg != "registry lock "+path+" is free" {
		t.Fatalf("Clear with no lock = %q, %v", msg, err)
	}
	h := startHolder(t, path)
	msg, err = Clear(path, testHost)
	var e *Error
	if !errors.As(err, &e) || e.Code != wire.CodeLockHeld || msg != "" || !strings.HasSuffix(e.Error(), "it is running. If it is dead, run any comm command on testbox.") {
		t.Fatalf("Clear of a live holder = %q, %v", msg, err)
	}
	h.kill(t)
	msg, err = Clear(path, testHost)
	want := fmt.Sprintf("cleared registry lock %s, held by testbox pid %d start %s: it has exited", path, h.rec.PID, h.rec.Start)
	if err != nil || msg != want {
		t.Fatalf("Clear of a dead holder = %q, %v\nwant %q", msg, err, want)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock not cleared: %v", err)
	}
	if markers(t, path) != 1 {
		t.Fatal("the clear's marker was not kept")
	}
}

// TestClearRefuses: locks no box here can clear are refused with the by-hand
// recovery.
func TestClearRefuses(t *testing.T) {
	tests := []struct {
		name string
		make func(path string) error
		want string // with %[1]s for the path
	}{
		{"another machine", func(p string) error { return os.WriteFile(p, []byte("far:feed:b:n:7:9\n"), 0o600) },
			"it is on another machine. If it is dead: run any comm command on far, or, if far will not run again or a comm command there says it cannot prove a death, remove %[1]s by hand."},
		{"no proof fields", func(p string) error { return os.WriteFile(p, []byte("mac:-:-:-:7:-\n"), 0o600) },
			"No box can prove mac pid 7 dead (its record has no proof fields): if it is, remove %[1]s by hand."},
		{"an older version's directory", func(p string) error { return os.Mkdir(p, 0o700) },
			"held by an older version that records no holder. If its holder is dead, remove %[1]s by hand and retry."},
		{"a record that cannot be read", func(p string) error { return os.Symlink(p+".nowhere", p) },
			"still held (0s old): its record could not be read (no such file or directory). If its holder is dead, remove %[1]s by hand and retry."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, _ := proofHome(t)
			if err := tt.make(path); err != nil {
				t.Fatal(err)
			}
			msg, err := clearLock(path, newClock().opts(0))
			if want := fmt.Sprintf(tt.want, path); err == nil || msg != "" || !strings.HasSuffix(err.Error(), want) {
				t.Fatalf("Clear = %q, %v\nwant an error ending %q", msg, err, want)
			}
			if !exists(path) {
				t.Fatal("a refused clear removed the lock")
			}
		})
	}
}
