package daemon

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/sotcomm/sotd/wire"
)

func TestStopAnswersWhatIsInFlight(t *testing.T) {
	t.Setenv("SOT_INBOX_LOCK_WAIT_SECS", "5")
	r := startRig(t)
	c := r.dial(t)
	release := holdInboxLock(t, r.home, "bob")
	answered := make(chan error, 1)
	go func() {
		got, err := call(t, c, wire.CommFile{From: "alice", To: "bob", Text: "in flight", ID: "01HZX00000000000000000STOP"})
		if err == nil && !got.OK {
			err = errors.New("answered without ok")
		}
		answered <- err
	}()
	// The request waits in the filer for the held lock; then the daemon is told
	// to stop, and only then is the lock let go.
	waitFor(t, "the request to reach the filer", func() bool { return r.logs.Contains("filing a batch") })
	stopped := make(chan error, 1)
	go func() { stopped <- r.stop(t) }()
	time.Sleep(200 * time.Millisecond)
	select {
	case err := <-stopped:
		t.Fatalf("Run returned (%v) while a request was in flight", err)
	default:
	}
	release()
	if err := <-answered; err != nil {
		t.Fatalf("the in-flight request: %v", err)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("Run after a graceful stop = %v, want nil", err)
	}
	if n := len(r.inbox(t, "bob")); n != 1 {
		t.Fatalf("bob's inbox holds %d lines, want the one in flight", n)
	}
	if _, err := os.Stat(r.sock); !os.IsNotExist(err) {
		t.Fatalf("the socket is still there after stop: %v", err)
	}
	if _, err := call(t, c, wire.CommFile{From: "alice", To: "bob", Text: "late"}); !errors.Is(err, wire.ErrClosed) {
		t.Fatalf("a call after stop = %v, want the connection closed", err)
	}
	for _, want := range []string{"sotd serving", "sotd stopped"} {
		if !r.logs.Contains(want) {
			t.Errorf("the log does not say %q:\n%s", want, r.logs.String())
		}
	}
}
