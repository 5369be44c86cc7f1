package daemon

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// helloAs is a hello frame of role.
func helloAs(role string) string {
	p, _ := json.Marshal(wire.Hello{Role: role, Host: "box", Protocol: wire.Protocol})
	return frame(1, wire.OpHello, string(p))
}

// admitted is a raw connection whose hello as role was accepted.
func (r *rig) admitted(t *testing.T, role string) *raw {
	t.Helper()
	c := r.raw(t)
	c.send(helloAs(role))
	env, closed := c.next()
	var refused wire.Error
	json.Unmarshal(env.Payload, &refused)
	if closed || env.Kind != wire.KindRes || refused.Error != "" {
		t.Fatalf("hello as %s: answered %s, closed %v", role, env.Payload, closed)
	}
	return c
}

// A cli connection that said hello and then nothing is closed after the idle
// bound; one whose request is still being answered is not, and a frontend's
// quiet connection, which is held open by design, stays.
func TestIdleConnections(t *testing.T) {
	t.Setenv("SOT_INBOX_LOCK_WAIT_SECS", "1")
	r := startRig(t, func(d *Daemon) { d.idleWait = 200 * time.Millisecond })

	fe := r.admitted(t, wire.RoleFE)
	idle := r.admitted(t, wire.RoleCLI)
	if _, closed := idle.next(); !closed {
		t.Fatal("an idle cli connection got a frame, want it closed")
	}
	// fe said hello before idle did, so it has been quiet at least as long.
	fe.send(frame(2, wire.OpRegistryList, `{}`))
	if env, closed := fe.next(); closed || env.ID != 2 {
		t.Fatalf("a quiet frontend connection: %+v, closed %v; want it served", env, closed)
	}

	// A request that waits out the inbox lock (1 s, five idle bounds) is
	// answered on its connection.
	release := holdInboxLock(t, r.home, "bob")
	defer release()
	busy := r.admitted(t, wire.RoleCLI)
	req, _ := json.Marshal(wireReq("bob"))
	busy.send(frame(2, wire.OpCommFile, string(req)))
	env, closed := busy.next()
	if closed || env.ID != 2 {
		t.Fatalf("a cli connection waiting on its answer: %+v, closed %v; want the answer", env, closed)
	}
	if _, closed := busy.next(); !closed {
		t.Fatal("the cli connection stayed open after its answer and the idle bound")
	}
}

// At the cap, the next connection waits unserved; the owner's CLI request is
// served as soon as another connection closes.
func TestConnectionCap(t *testing.T) {
	const max = 3
	r := startRig(t, func(d *Daemon) { d.maxConns = max })
	var held []*raw
	for range max {
		held = append(held, r.admitted(t, wire.RoleFE))
	}

	served := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := wire.Dial(ctx, r.sock, wire.Hello{Role: wire.RoleCLI, Host: "box", Protocol: wire.Protocol})
		if err != nil {
			served <- err
			return
		}
		defer c.Close()
		served <- c.Call(ctx, wire.OpRegistryList, struct{}{}, nil)
	}()
	waitFor(t, "the daemon to log that it is at its cap", func() bool { return r.logs.Contains("as many connections as it may") })
	select {
	case err := <-served:
		t.Fatalf("connection %d was served (%v) while %d were open, the cap", max+1, err, max)
	case <-time.After(300 * time.Millisecond):
	}

	held[0].nc.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("the CLI request once a connection closed: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the CLI request was not served within 5s of a connection closing")
	}
}
