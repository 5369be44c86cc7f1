package web

import (
	"bytes"
	"context"

	"github.com/coder/websocket"

	"github.com/sotcomm/sotd/events"
	"github.com/sotcomm/sotd/metrics"
	"github.com/sotcomm/sotd/wire"
)

// busEvent is the payload of a subscribed event: the bus's number and what
// was published.
type busEvent struct {
	Seq  uint64 `json:"seq"`
	Data any    `json:"data,omitempty"`
}

// writeLoop owns every write after the hello: one message per frame, in the
// order they were queued. Once flush closes it sends what is still queued,
// for at most flushWait, and returns.
func (c *conn) writeLoop(ctx context.Context, flush <-chan struct{}) {
	write := func(ctx context.Context, f []byte) error {
		return c.ws.Write(ctx, websocket.MessageText, bytes.TrimSuffix(f, []byte("\n")))
	}
	for {
		select {
		case f := <-c.out:
			if write(ctx, f) != nil {
				c.cancel()
				return
			}
		case <-flush:
			fctx, cancel := context.WithTimeout(ctx, flushWait)
			defer cancel()
			for {
				select {
				case f := <-c.out:
					if write(fctx, f) != nil {
						return
					}
				default:
					return
				}
			}
		case <-ctx.Done():
			return
		}
	}
}

// send queues an answer, waiting for room.
func (c *conn) send(ctx context.Context, id uint64, op string, p any) error {
	f, err := wire.EncodeFrame(id, wire.KindRes, op, p)
	if err != nil {
		f, _ = wire.EncodeFrame(id, wire.KindRes, op, wire.Error{Error: err.Error(), Code: wire.CodeBackend})
	}
	return c.queue(ctx, f)
}

func (c *conn) queue(ctx context.Context, f []byte) error {
	select {
	case c.out <- f:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// writeNow answers before the write loop runs (the hello).
func (c *conn) writeNow(ctx context.Context, id uint64, op string, p any) {
	if f, err := wire.EncodeFrame(id, wire.KindRes, op, p); err == nil {
		c.ws.Write(ctx, websocket.MessageText, bytes.TrimSuffix(f, []byte("\n")))
	}
}

// broadcast queues frame on every connection to, without waiting: one whose
// queue is full is closed (its frontend reconnects and resubscribes) rather
// than let it hold up the sender. It returns how many were queued.
func (s *Server) broadcast(frame []byte, to func(*conn) bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, o := range s.conns {
		if !to(o) {
			continue
		}
		select {
		case o.out <- frame:
			n++
		default:
			s.cfg.Log.Info("frontend fell behind a broadcast; closing it", "name", o.name)
			o.cancel()
		}
	}
	return n
}

// pump forwards the subscription to the peer until the connection ends.
func (c *conn) pump(ctx context.Context) {
	for {
		ev, err := c.sub.Next(ctx)
		if err != nil {
			c.cancel()
			return
		}
		if ev.Kind == events.KindResync {
			metrics.StreamResync()
		}
		f, err := wire.EncodeFrame(0, wire.KindEvt, ev.Kind, busEvent{Seq: ev.Seq, Data: ev.Payload})
		if err != nil {
			// Skipping it would be a silent gap; the frontend reconnects
			// and starts again from a snapshot.
			c.s.cfg.Log.Error("event cannot be sent to a frontend; closing it", "name", c.name, "kind", ev.Kind, "err", err)
			c.cancel()
			return
		}
		if c.queue(ctx, f) != nil {
			return
		}
	}
}
