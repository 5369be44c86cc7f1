package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/sotcomm/sotd/internal/testutil"
)

// putBackWithin bounds how long a daemon takes to notice run/ is gone (its
// watch looks every 2 s) and put its files back.
const putBackWithin = 10 * time.Second

// deleteRun removes the home's run/ folder as a cleanup script would, again
// while the daemon, still starting, makes a file in it as it goes.
func deleteRun(t *testing.T, b *box) {
	t.Helper()
	testutil.Eventually(t, 5*time.Second, "run/ to be removed", func() bool {
		return os.RemoveAll(filepath.Join(b.home, "run")) == nil
	})
}

// serveOnce runs a second `sotd serve` on b, which must exit by itself; on a
// home whose daemon is not seen, it would serve until killed here.
func serveOnce(t *testing.T, b *box) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sotdBin, "serve", "--http", "off")
	cmd.Env = b.env("")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("a second sotd serve was still running after 15s, beside the first:\n%s", out)
	}
	r := result{stderr: string(out)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDeletedRunIsPutBack: with run/ deleted under a running daemon, a second
// `sotd serve` is refused by name, and the first puts its socket and locks
// back, so clients reach it again and a lock-manager reset still sees it.
func TestDeletedRunIsPutBack(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("Windows does not delete files a process holds open")
	}
	b := newBox(t, "box")
	first := b.serve()
	pid := strconv.Itoa(first.cmd.Process.Pid)
	b.must("alice", "join")
	b.must("alice", "rows")

	deleteRun(t, b)
	second := serveOnce(t, b)
	if second.code == 0 || !strings.Contains(second.stderr, "a daemon already serves this home for box box: pid "+pid) || !strings.Contains(second.stderr, "kill "+pid) {
		t.Fatalf("a second sotd serve with run/ deleted: exit %d\n%s\nwant it refused, naming pid %s and how to stop it", second.code, second.stderr, pid)
	}

	// rows asks the daemon, and says "no sotd daemon found" while its socket is gone.
	testutil.Eventually(t, putBackWithin, "the first daemon to answer at its socket again", func() bool {
		return b.run("alice", "", "rows").code == 0
	})
	if !first.logs.Contains("files this daemon holds were deleted under it") {
		t.Errorf("the daemon did not say run/ was deleted:\n%s", first.logs.String())
	}
	testutil.Eventually(t, putBackWithin, "run/daemons.lock to be held again", func() bool {
		r := b.run("", "", "lock-manager", "reset")
		return r.code != 0 && strings.Contains(r.stdout, "a daemon is running on this folder")
	})
	select {
	case err := <-first.done:
		t.Fatalf("the first daemon exited: %v\n%s", err, first.logs.String())
	default:
	}
	// A refused start leaves the running daemon's record alone.
	if again := serveOnce(t, b); again.code == 0 || !strings.Contains(again.stderr, "pid "+pid) {
		t.Fatalf("a second sotd serve with run/ back: exit %d\n%s", again.code, again.stderr)
	}
}

// TestDeletedRunTakenStopsTheDaemon: when what the daemon would put back is
// another's now (here, its socket's lock), it exits non-zero saying why
// rather than run beside it.
func TestDeletedRunTakenStopsTheDaemon(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("Windows does not delete files a process holds open")
	}
	b := newBox(t, "box")
	first := b.serve()
	deleteRun(t, b)
	if err := os.MkdirAll(filepath.Dir(b.socket()), 0o700); err != nil {
		t.Fatal(err)
	}
	taken := flock.New(b.socket() + ".lock")
	if ok, err := taken.TryLock(); !ok || err != nil {
		t.Fatalf("take the new socket lock: %v, %v", ok, err)
	}
	defer taken.Unlock()
	var err error
	testutil.Eventually(t, putBackWithin, "the daemon to exit", func() bool {
		select {
		case err = <-first.done:
			first.done <- err
			return true
		default:
			return false
		}
	})
	first.stopped.Do(func() {}) // it has exited: no SIGTERM, no clean-exit check
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() == 0 || !strings.Contains(first.logs.String(), "could not put them back") || !strings.Contains(first.logs.String(), "another daemon holds "+b.socket()+".lock now") {
		t.Fatalf("the daemon whose socket lock was taken: %v\n%s", err, first.logs.String())
	}
	if _, err := os.Stat(filepath.Join(b.home, "daemon.box")); !os.IsNotExist(err) {
		t.Errorf("the daemon that stopped left its record: %v", err)
	}
}
