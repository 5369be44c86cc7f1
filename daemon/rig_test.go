package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net"
	"os"
	"testing"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/rigtest"
	"github.com/sotcomm/sotd/internal/testutil"

	"github.com/gofrs/flock"
	"go.uber.org/goleak"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/wire"
)

func TestMain(m *testing.M) {
	// Every rig's daemon takes its socket from its own home, never from the
	// environment of whoever runs the tests: cleared once here rather than by
	// t.Setenv in each rig, which would keep rig tests from running in parallel.
	os.Unsetenv(home.EnvSocket)
	// The parallel tests here wait on real time (the wake's tick and
	// stillness, the dialog watch, the page's watch, links), but for a
	// simulation beside them.
	flag.Parse()
	testutil.AtLeastParallel(4)
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { rigtest.RemoveFakeAgent() }))
}

// The rig's clock, home and registry (rigtest).
var (
	testNow       = rigtest.Now
	newHome       = rigtest.NewHome
	writeRegistry = rigtest.WriteRegistry
	fakeAgentPath = rigtest.FakeAgent
	byteLog       = rigtest.ByteLog
)

// rig is a daemon serving a temporary comm home on a real Unix socket, with a
// registry that lists bob (live), stale (last seen an hour ago) and carol (live).
type rig struct {
	home home.Home
	sock string
	logs *testutil.SyncBuffer

	cancel context.CancelFunc
	done   chan error
}

// startRig runs a daemon on a new home; tune, when given, adjusts it before Run.
func startRig(t *testing.T, tune ...func(*Daemon)) *rig {
	t.Helper()
	return startOn(t, newHome(t), tune...)
}

func startOn(t testing.TB, h home.Home, tune ...func(*Daemon)) *rig {
	t.Helper()
	// Made before the daemon, the test's temp folder (where fakeSpawn puts a
	// row's folder and byte log) is removed only after the daemon has stopped
	// and its rows have ended.
	t.TempDir()
	logs := &testutil.SyncBuffer{}
	d, err := New(Config{Home: h, Host: "box", Log: logs.Logger(), Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tune {
		f(d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &rig{home: h, sock: d.cfg.Socket, logs: logs, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- d.Run(ctx) }()
	waitFor(t, "the daemon to listen", func() bool { return testutil.Answers(r.sock) })
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop cancels the daemon and returns what Run returned; it is safe to call twice.
func (r *rig) stop(t testing.TB) error {
	t.Helper()
	if r.cancel == nil {
		return nil
	}
	r.cancel()
	r.cancel = nil
	select {
	case err := <-r.done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the daemon did not stop within 10s of its cancel")
		return nil
	}
}

// waitFor fails only what never comes: 30 s, as long as a guest's link can
// take under the full suite's load (a dial that missed the hub's listener
// waits out the QUIC handshake, 3 s, and a relink's 1-2 s, before its next).
func waitFor(t testing.TB, what string, ok func() bool) {
	t.Helper()
	testutil.Eventually(t, 30*time.Second, what, ok)
}

// answerWait bounds a test's wait for one answer from a daemon: it fails only
// an answer that never comes, not a daemon slowed by the full suite's load.
const answerWait = 30 * time.Second

// dial opens a wire client that has said hello.
func (r *rig) dial(t testing.TB) *wire.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), answerWait)
	defer cancel()
	c, err := wire.Dial(ctx, r.sock, wire.Hello{Role: wire.RoleCLI, Host: "box", Protocol: wire.Protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// inbox returns the lines of handle's inbox, each decoded.
func (r *rig) inbox(t testing.TB, handle string) []map[string]any {
	t.Helper()
	p, err := r.home.HandlePath(home.Inbox, handle)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Fatalf("inbox %s ends without a newline: %q", p, b)
	}
	var lines []map[string]any
	for _, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("inbox line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	return lines
}

// raw is a connection that speaks bytes, for transcripts of what a broken or
// hostile client sends.
type raw struct {
	t  testing.TB
	nc *net.UnixConn
	br *bufio.Reader
}

func (r *rig) raw(t testing.TB) *raw {
	t.Helper()
	nc, err := net.Dial("unix", r.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &raw{t: t, nc: nc.(*net.UnixConn), br: bufio.NewReader(nc)}
}

func (c *raw) send(s string) {
	c.t.Helper()
	// A peer that stops reading (it refused us) may close before all is written;
	// what it answered is what the test reads.
	go c.nc.Write([]byte(s))
}

// next reads one answer frame, or reports that the daemon closed the connection.
func (c *raw) next() (env wire.Envelope, closed bool) {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(answerWait))
	line, err := c.br.ReadBytes('\n')
	if err != nil {
		if len(line) > 0 {
			c.t.Fatalf("the daemon sent %q and no newline: %v", line, err)
		}
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			c.t.Fatalf("no answer within %s", answerWait)
		}
		return wire.Envelope{}, true
	}
	env, err = wire.Decode(bytes.TrimSuffix(line, []byte("\n")))
	if err != nil {
		c.t.Fatalf("the daemon sent a bad frame %q: %v", line, err)
	}
	return env, false
}

// frame is one request as a client writes it.
func frame(id int, op string, payload string) string {
	b, _ := json.Marshal(map[string]any{"v": 1, "id": id, "kind": "req", "op": op, "payload": json.RawMessage(payload)})
	return string(b) + "\n"
}

func helloFrame(user string, protocol int) string {
	p, _ := json.Marshal(wire.Hello{Role: wire.RoleCLI, Host: "box", OSUser: user, Protocol: protocol})
	return frame(1, wire.OpHello, string(p))
}

// holdInboxLock takes handle's inbox lock as another writer would (its own open
// file description, so the daemon's flock conflicts with it) until release.
func holdInboxLock(t testing.TB, h home.Home, handle string) (release func()) {
	t.Helper()
	p, err := h.HandlePath(home.InboxLock, handle)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	l := flock.New(p, flock.SetPermissions(home.FileMode))
	if err := l.Lock(); err != nil {
		t.Fatal(err)
	}
	return func() { l.Unlock() }
}
