package daemon

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/machine"
	"github.com/sotcomm/sotd/presence"
	"github.com/sotcomm/sotd/registry/reglock"
)

// TestPresenceRecord: a record naming a process this box sees running refuses
// a start, whatever run/ holds; one whose process has exited does not, and the
// daemon that starts replaces it with its own and removes that when it stops.
func TestPresenceRecord(t *testing.T) {
	if !machine.ProvesDeath {
		t.Skip("this OS reads no process start time, so no record is seen running")
	}
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	rec := reglock.Me("box")
	rec.PID, rec.Start = child.Process.Pid, machine.Start(child.Process.Pid)
	pid := strconv.Itoa(rec.PID)

	h := newHome(t)
	path := presence.Record(h, "box")
	if err := os.WriteFile(path, []byte(rec.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := New(Config{Home: h, Host: "box"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = d.Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "a daemon already serves this home for box box: pid "+pid+", as "+path+" records; stop it first (kill "+pid) {
		t.Fatalf("Run beside a running daemon's record = %v", err)
	}

	child.Process.Kill()
	child.Wait()
	r := startOn(t, h)
	// The socket answers a moment before the daemon writes its record.
	var b []byte
	if !testutil.Within(5*time.Second, func() bool {
		b, _ = os.ReadFile(path)
		got, _ := reglock.ParseHolder(strings.TrimSpace(string(b)))
		return got.PID == os.Getpid()
	}) {
		t.Fatalf("after the recorded process exited, the record is %q, want this process's", b)
	}
	if err := r.stop(t); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the record outlived its daemon: %v", err)
	}
}
