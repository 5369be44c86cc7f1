package link

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/sotcomm/sotd/wire"
)

// calls are this end's requests waiting for their answers, by id. Each end's
// ids are its own, so an answer always answers the receiver's request.
type calls struct {
	mu sync.Mutex
	m  map[uint64]chan wire.Envelope
}

func (cs *calls) add(id uint64) chan wire.Envelope {
	ch := make(chan wire.Envelope, 1) // the one answer, never waited on to be taken
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.m == nil {
		cs.m = map[uint64]chan wire.Envelope{}
	}
	cs.m[id] = ch
	return ch
}

func (cs *calls) drop(id uint64) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	delete(cs.m, id)
}

// answer hands env to the call waiting for it; the answer to a call that gave
// up is dropped.
func (cs *calls) answer(env wire.Envelope) {
	cs.mu.Lock()
	ch := cs.m[env.ID]
	delete(cs.m, env.ID)
	cs.mu.Unlock()
	if ch != nil {
		ch <- env
	}
}

// await waits for the answer on ch until ctx ends or the connection does
// (gone, failure says why). An answer that came before the connection ended is
// still the answer.
func await(ctx context.Context, ch chan wire.Envelope, gone <-chan struct{}, failure func() error) (wire.Envelope, error) {
	select {
	case env := <-ch:
		return env, nil
	case <-ctx.Done():
		return wire.Envelope{}, ctx.Err()
	case <-gone:
		select {
		case env := <-ch:
			return env, nil
		default:
			return wire.Envelope{}, failure()
		}
	}
}

// muxStream is one QUIC stream of a multiplexed link: its writer's frames go
// one at a time, each whole.
type muxStream struct {
	s  *quic.Stream
	mu sync.Mutex
}

// write sends one frame. A write that fails may have sent part of the frame,
// after which nothing on the stream could be read, so it ends the link.
func (m *muxStream) write(q *quicCarrier, frame []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.s.SetWriteDeadline(time.Now().Add(writeWait))
	if _, err := m.s.Write(frame); err != nil {
		q.shut(closeNormal, "a frame could not be written on the link: "+err.Error())
		return err
	}
	return nil
}

// multiplex carries this link's requests as the hello agreed (Hello.Mux): each
// end opens one stream of its own at once and writes its requests there, and
// link.cancel events for those it gives up on; the peer answers on the same
// stream, in any order, matched by id. The peer's first stream after the
// control stream is its request stream. It runs before the link starts.
func (q *quicCarrier) multiplex() error {
	s, err := q.qc.OpenStream()
	if err != nil {
		return fmt.Errorf("open this end's request stream: %w", err)
	}
	q.out = &muxStream{s: s}
	q.requests = make(chan *exchange)
	q.wg.Go(q.readAnswers)
	q.wg.Go(func() {
		in, err := q.qc.AcceptStream(q.qc.Context())
		if err == nil {
			q.readRequests(&muxStream{s: in})
		}
	})
	return nil
}

// muxBuffer is each multiplexed stream's read buffer: most frames are far
// smaller, and a larger one is read in pieces up to MaxFrame.
const muxBuffer = 4 << 10

// readAnswers takes the answers to this end's requests off its request stream.
func (q *quicCarrier) readAnswers() {
	r := wire.NewReaderSize(q.out.s, muxBuffer)
	for {
		env, err := r.Read()
		if err != nil {
			q.misread("the peer's answers", err)
			return
		}
		if env.Kind != wire.KindRes {
			q.shut(closeProtocol, fmt.Sprintf("a %s %s frame came where only answers belong", env.Kind, env.Op))
			return
		}
		q.calls.answer(env)
	}
}

// readRequests takes the peer's requests off its request stream and hands each
// to accept, at the pace the link's handlers take them (a peer past
// MaxInFlight waits, as its writes do); a link.cancel ends its request's ctx.
func (q *quicCarrier) readRequests(in *muxStream) {
	var mu sync.Mutex
	open := map[uint64]context.CancelFunc{} // requests not yet answered
	r := wire.NewReaderSize(in.s, muxBuffer)
	for {
		env, err := r.Read()
		if err != nil {
			q.misread("the peer's requests", err)
			return
		}
		switch {
		case env.Kind == wire.KindReq:
			ctx, cancel := context.WithCancel(q.qc.Context())
			mu.Lock()
			_, dup := open[env.ID]
			if !dup {
				open[env.ID] = cancel
			}
			mu.Unlock()
			if dup {
				cancel()
				q.shut(closeProtocol, fmt.Sprintf("request %d came again while it was still being answered", env.ID))
				return
			}
			done := func() {
				mu.Lock()
				delete(open, env.ID)
				mu.Unlock()
				cancel()
			}
			ex := &exchange{
				ctx:  ctx,
				read: func() (wire.Envelope, error) { return env, nil },
				reply: func(frame []byte) error {
					defer done()
					if ctx.Err() != nil {
						return ctx.Err() // the caller gave up: nothing waits for it
					}
					return in.write(q, frame)
				},
				abort: done,
			}
			select {
			case q.requests <- ex:
			case <-q.qc.Context().Done():
				done()
				return
			}
		case env.Kind == wire.KindEvt && env.Op == wire.OpLinkCancel:
			mu.Lock()
			cancel := open[env.ID]
			mu.Unlock()
			if cancel != nil {
				cancel()
			}
		default:
			q.shut(closeProtocol, fmt.Sprintf("a %s %s frame came on the peer's request stream, which carries requests and link.cancel", env.Kind, env.Op))
			return
		}
	}
}

// misread ends the link for a multiplexed stream that could not be read,
// unless the connection under it has ended already: a frame that is not one
// (past MaxFrame, not text) leaves nothing after it readable, and a peer that
// ends its stream has left the link.
func (q *quicCarrier) misread(what string, err error) {
	if connGone(err) {
		return
	}
	code := closeNormal
	if errors.Is(err, wire.ErrFrame) {
		code = closeProtocol
	}
	q.shut(code, fmt.Sprintf("%s could not be read: %v", what, err))
}

// muxCall sends one request on this end's request stream and waits for its
// answer; a call given up is told to the peer (link.cancel), so its handler's
// ctx ends as a reset stream's does.
func (q *quicCarrier) muxCall(ctx context.Context, id uint64, frame []byte) (wire.Envelope, error) {
	ch := q.calls.add(id)
	defer q.calls.drop(id)
	gone := q.qc.Context()
	if err := q.out.write(q, frame); err != nil {
		return wire.Envelope{}, err
	}
	env, err := await(ctx, ch, gone.Done(), func() error { return context.Cause(gone) })
	if err != nil && ctx.Err() != nil && gone.Err() == nil {
		if f, ferr := wire.EncodeFrame(id, wire.KindEvt, wire.OpLinkCancel, nil); ferr == nil {
			q.out.write(q, f)
		}
	}
	return env, err
}

// muxAccept waits for the peer's next request off its request stream.
func (q *quicCarrier) muxAccept(ctx context.Context) (*exchange, error) {
	select {
	case ex := <-q.requests:
		return ex, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-q.qc.Context().Done():
		return nil, context.Cause(q.qc.Context())
	}
}
