package web

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/events"
	"github.com/sotcomm/sotd/wire"
)

type gotEvent struct {
	Seq  uint64          `json:"seq"`
	Data json.RawMessage `json:"data"`
}

func eventOf(t *testing.T, env wire.Envelope) gotEvent {
	t.Helper()
	var e gotEvent
	if env.Kind != wire.KindEvt || json.Unmarshal(env.Payload, &e) != nil {
		t.Fatalf("got %s %s %s, want an event", env.Kind, env.Op, env.Payload)
	}
	return e
}

func TestSubscribeSnapshotThenLive(t *testing.T) {
	r := startServer(t, 0, View{Host: "box", Agents: []Agent{{Handle: "alice", Host: "box", Live: true}}})
	r.fake.unread("alice", 1) // seq 1, before the subscription
	c := r.connect(t, "fe@box")
	if e := errorOf(c.call(OpSubscribe, struct{}{})); e.Code != "" {
		t.Fatalf("subscribe refused: %+v", e)
	}
	env := c.next()
	snap := eventOf(t, env)
	var v View
	json.Unmarshal(snap.Data, &v)
	if env.Op != events.KindSnapshot || snap.Seq != 1 || len(v.Agents) != 1 || v.Agents[0].Unread != 1 {
		t.Fatalf("first event %s %s, want the snapshot at 1 with alice's 1 unread", env.Op, env.Payload)
	}
	r.fake.join(Agent{Handle: "bob", Host: "nas", Live: true, State: "working"})
	r.fake.unread("bob", 2)
	wants := []struct {
		op, has string
	}{{EvAgentState, `"handle":"bob"`}, {EvUnread, `"count":2`}}
	for i, w := range wants {
		env := c.next()
		e := eventOf(t, env)
		if env.Op != w.op || e.Seq != uint64(i+2) || !strings.Contains(string(e.Data), w.has) {
			t.Fatalf("event %d: %s %s, want %s #%d with %s", i, env.Op, env.Payload, w.op, i+2, w.has)
		}
	}
	if e := errorOf(c.call(OpSubscribe, struct{}{})); e.Code != wire.CodeBadRequest {
		t.Fatalf("a second subscribe answered %+v, want bad_request", e)
	}
}

// A frontend that stops reading while the daemon publishes more than the
// socket, its queue and its buffer hold gets, when it reads again, the events
// up to the gap, then one stream_resync and a snapshot as of the gap's end,
// then live events: never a silent gap.
func TestSlowSubscriberGetsResyncAndSnapshot(t *testing.T) {
	const buffer, n = 4, 600
	r := startServer(t, buffer, View{Host: "box"})
	slow := r.connect(t, "fe@slow")
	slow.call(OpSubscribe, struct{}{})
	if env := slow.next(); env.Op != events.KindSnapshot {
		t.Fatalf("first event %s, want snapshot", env.Op)
	}
	// 64 KiB events: 600 of them are far more than loopback TCP buffers hold.
	pad := strings.Repeat("x", 64<<10)
	for i := 0; i < n; i++ {
		r.fake.bus.Publish(EvUnread, map[string]any{"handle": "alice", "count": i, "pad": pad})
	}
	r.fake.bus.Publish(EvLink, Link{Peer: "nas", Up: true})

	var last uint64
	var resyncs, before int
	for last != n+1 {
		env := slow.next()
		e := eventOf(t, env)
		switch {
		case env.Op == events.KindResync:
			resyncs++
			if env = slow.next(); env.Op != events.KindSnapshot {
				t.Fatalf("after stream_resync got %s, want a snapshot", env.Op)
			}
			if snap := eventOf(t, env); snap.Seq < last {
				t.Fatalf("snapshot at %d is older than event %d", snap.Seq, last)
			} else {
				last = snap.Seq
			}
		case env.Op == events.KindSnapshot:
			t.Fatalf("a snapshot at %d without stream_resync before it", e.Seq)
		case e.Seq != last+1:
			t.Fatalf("silent gap: event %d after %d", e.Seq, last)
		default:
			last = e.Seq
			if resyncs == 0 {
				before++
			}
		}
	}
	if resyncs == 0 {
		t.Fatalf("read all %d events without falling behind; the test did not stall the reader", n)
	}
	t.Logf("the stalled frontend read %d events, then %d resync(s), ending at the live event %d", before, resyncs, last)
}
