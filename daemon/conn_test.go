package daemon

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// A request that waits on a held inbox lock delays no other answer on its
// connection: not when it came to a worker that had answered before, nor for
// the requests read after it, which the connection's other workers answer.
func TestASlowRequestDelaysNoOtherAnswer(t *testing.T) {
	t.Setenv("SOT_INBOX_LOCK_WAIT_SECS", "5")
	r := startRig(t)
	c := r.admitted(t, wire.RoleFE)
	answered := func(id uint64) wire.Envelope {
		t.Helper()
		env, closed := c.next()
		if closed || env.ID != id {
			t.Fatalf("got %+v, closed %v; want the answer to request %d", env, closed, id)
		}
		return env
	}
	// A worker answers and waits for the next request, which is the slow one.
	c.send(frame(2, wire.OpRegistryList, `{}`))
	answered(2)
	release := holdInboxLock(t, r.home, "bob")
	defer release()
	req, _ := json.Marshal(wireReq("bob"))
	c.send(frame(3, wire.OpCommFile, string(req)))
	waitFor(t, "the request to reach the filer", func() bool { return r.logs.Contains("filing a batch") })
	for id := 4; id < 8; id++ {
		c.send(frame(id, wire.OpRegistryList, `{}`))
		answered(uint64(id))
	}
	release()
	var filed wire.CommFiled
	if err := json.Unmarshal(answered(3).Payload, &filed); err != nil || !filed.OK {
		t.Fatalf("the slow request's answer: %+v, %v; want it filed", filed, err)
	}
}

// A hello sent with a request in one write (wire.CallOnce) is answered with
// that request's answer, in one write, so the client is woken once: nothing
// comes while the request waits on a held inbox lock, then both answers come
// in one read.
func TestAHelloWithARequestIsAnsweredWithIt(t *testing.T) {
	r := startRig(t, func(d *Daemon) { d.helloHold = time.Minute })
	release := holdInboxLock(t, r.home, "bob")
	defer release()
	c := r.raw(t)
	req, _ := json.Marshal(wireReq("bob"))
	if _, err := c.nc.Write([]byte(helloFrame(me(t), wire.Protocol) + frame(2, wire.OpCommFile, string(req)))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the request to reach the filer", func() bool { return r.logs.Contains("filing a batch") })
	buf := make([]byte, 64<<10)
	c.nc.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, err := c.nc.Read(buf); err == nil {
		t.Fatalf("the daemon answered %q while the request that came with the hello waits", buf[:n])
	}
	release()
	c.nc.SetReadDeadline(time.Now().Add(answerWait))
	n, err := c.nc.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(buf[:n], []byte("\n")), []byte("\n"))
	if len(lines) != 2 {
		t.Fatalf("one read got %d frames, %q; want the hello's answer and the request's", len(lines), buf[:n])
	}
	for i, want := range []struct {
		id uint64
		op string
	}{{1, wire.OpHello}, {2, wire.OpCommFile}} {
		env, err := wire.Decode(lines[i])
		if err != nil || env.ID != want.id || env.Op != want.op || env.Kind != wire.KindRes {
			t.Fatalf("frame %d: %+v, %v; want the answer to %s (id %d)", i, env, err, want.op, want.id)
		}
	}
}

// The hello's answer waits for the request that came with it only so long
// (Daemon.helloHold): a request still waiting then lets it go alone.
func TestAHeldHelloGoesAloneAfterItsBound(t *testing.T) {
	r := startRig(t, func(d *Daemon) { d.helloHold = 10 * time.Millisecond })
	release := holdInboxLock(t, r.home, "bob")
	defer release()
	c := r.raw(t)
	req, _ := json.Marshal(wireReq("bob"))
	c.send(helloFrame(me(t), wire.Protocol) + frame(2, wire.OpCommFile, string(req)))
	env, closed := c.next()
	if closed || env.ID != 1 || env.Op != wire.OpHello {
		t.Fatalf("while the request waits: %+v, closed %v; want the hello's answer", env, closed)
	}
	release()
	if env, closed := c.next(); closed || env.ID != 2 {
		t.Fatalf("after the lock: %+v, closed %v; want the request's answer", env, closed)
	}
}
