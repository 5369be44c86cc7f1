//go:build !windows

package daemon

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// A FIFO put in registry.json's place never holds a send: the send answers a
// refusal that names it, and the daemon still stops when told to (as on
// SIGTERM). Before, the open waited for a writer that never came, and so did
// every request after it and the stop.
func TestAFIFORegistryFailsTheSendAndTheDaemonStops(t *testing.T) {
	t.Parallel()
	r := startRig(t)
	c := r.dial(t)
	if err := os.Remove(r.home.Registry()); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(r.home.Registry(), 0o600); err != nil {
		t.Fatal(err)
	}
	// If the fix is undone, a writer's open lets a blocked read go, so the
	// test fails rather than hangs.
	t.Cleanup(func() {
		if w, err := os.OpenFile(r.home.Registry(), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	_, err := call(t, c, wire.CommFile{From: "alice", To: "bob", Text: "hi", ID: "01HZX0000000000000000FIFO1"})
	wantRefusal(t, err, wire.CodeFileFailed, "registry.json is a FIFO, not a regular file; move it aside and retry")
	stopped := make(chan error, 1)
	go func() { stopped <- r.stop(t) }()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("Run after the stop = %v, want nil", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the daemon did not stop within 15s")
	}
}
