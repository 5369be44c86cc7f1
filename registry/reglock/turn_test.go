package reglock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// TestTurn: one goroutine of a process at a time holds a path's lock, and a
// wait for the turn counts inside the deadline.
func TestTurn(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".registry.lock")
	held, err := Take(path, Options{Host: testHost})
	if err != nil {
		t.Fatal(err)
	}
	c := newClock()
	_, err = Take(path, c.opts(200*time.Millisecond))
	var e *Error
	want := "registry lock " + path + " was not tried: another thread of this daemon held its turn past the bound"
	if !errors.As(err, &e) || e.Code != wire.CodeLockNotTried || e.Error() != want {
		t.Fatalf("Take while another goroutine holds the turn = %v", err)
	}
	if len(c.naps) != 4 {
		t.Fatalf("waited for the turn in %v, want 4 polls", c.naps)
	}
	if _, err := Clear(path, testHost); !errors.As(err, &e) || e.Code != wire.CodeLockNotTried {
		t.Fatalf("Clear while another goroutine holds the turn = %v", err)
	}

	// A path of its own has a turn of its own.
	other, err := Take(filepath.Join(t.TempDir(), ".registry.lock"), Options{Host: testHost})
	if err != nil {
		t.Fatalf("another path's lock: %v", err)
	}
	other.Release()

	got := make(chan error)
	go func() {
		l, err := Take(path, Options{Host: testHost, Deadline: 10 * time.Second})
		if err == nil {
			err = l.Release()
		}
		got <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if err := held.Release(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("the waiting goroutine: %v", err)
	}
}

// TestTurnFollowsSymlinks: a lock reached through a symlinked home shares its
// turn, so this process never reads its own held lock as left behind.
func TestTurnFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(dir, alias); err != nil {
		t.Fatal(err)
	}
	held, err := Take(filepath.Join(dir, ".registry.lock"), Options{Host: testHost})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	_, err = Take(filepath.Join(alias, ".registry.lock"), newClock().opts(0))
	var e *Error
	if !errors.As(err, &e) || e.Code != wire.CodeLockNotTried {
		t.Fatalf("Take through the symlink = %v, want not tried", err)
	}
}
