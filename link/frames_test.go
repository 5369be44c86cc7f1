package link

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// A guest that writes its own frames gets no text that is not text past the
// hub's reader, and a request past a bound is refused with its field named.
func TestLinkRefusesRequestsThatAreNotTextOrPastABound(t *testing.T) {
	const lone = `{"v":1,"id":%d,"kind":"req","op":"comm.file","payload":{"from":"alice","to":"bob","text":"\ud800"}}` + "\n"
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			var served atomic.Int64
			hubEnd, g, _ := pair(t, tr.dial, Config{Handler: func(ctx context.Context, c *Conn, op string, payload json.RawMessage) (any, error) {
				served.Add(1)
				return echo("hub")(ctx, c, op, payload)
			}}, Config{})
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()

			var res wire.CommFiled
			err := g.Call(ctx, wire.OpCommFile, wire.CommFile{From: "alice", To: "bob", ID: "ID 1"}, &res)
			if r, ok := wire.RefusalOf(err); !ok || r.Code != wire.CodeBadRequest || !contains(r.Sentence, `the message id "ID 1" has " " at byte 2`) {
				t.Fatalf("a comm.file whose id holds a space: %v (%+v); want bad_request naming the id", err, res)
			}

			env, err := call(ctx, g.car, 9, fmt.Appendf(nil, lone, 9))
			if err == nil {
				t.Fatalf("the hub answered a lone surrogate's frame: %+v", env)
			}
			if n := served.Load(); n != 1 {
				t.Fatalf("the hub's handler took %d requests; want only the one with a bad id, not the lone surrogate's", n)
			}
			if tr.name == "quic-per-call" {
				// Its stream is reset; the link stays up.
				if err := g.Call(ctx, wire.OpCommFile, wire.CommFile{From: "alice", To: "bob"}, &res); err != nil {
					t.Fatalf("a call after a bad frame on a stream of its own: %v; want the link up", err)
				}
				return
			}
			// On a stream (or a WebSocket) every request shares, as on the
			// socket, nothing after a bad frame can be read: the link ends.
			select {
			case <-hubEnd.Done():
			case <-time.After(5 * time.Second):
				t.Fatalf("the link stayed up after a bad frame over %s", tr.name)
			}
		})
	}
}
