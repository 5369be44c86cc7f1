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

// calls are this end's requests waiting for their answers, by id, each with
// whom to hand its answer. Each end's ids are its own, so an answer always
// answers the receiver's request.
type calls struct {
	mu    sync.Mutex
	m     map[uint64]waiting
	ended error // the connection ended: a call added now is failed at once
}

// waiting is a call waiting for its answer: whom to hand it, and its items
// answered ahead of it (comm.file.items), nil for a call that takes none.
type waiting struct {
	done func(wire.Envelope, error)
	item func(wire.Envelope)
}

// add notes a call waiting for its answer; false, and done is not kept, once
// the connection has ended.
func (cs *calls) add(id uint64, done func(wire.Envelope, error), item func(wire.Envelope)) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.ended != nil {
		return false
	}
	if cs.m == nil {
		cs.m = map[uint64]waiting{}
	}
	cs.m[id] = waiting{done, item}
	return true
}

// take removes call id and returns whom to hand its answer, nil when it was
// answered, given up or failed already: whoever takes a call answers it.
func (cs *calls) take(id uint64) func(wire.Envelope, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	w := cs.m[id]
	delete(cs.m, id)
	return w.done
}

// items hands a comm.file.items event to the call it answers part of; one
// for a call that takes none, or no longer waits, is dropped.
func (cs *calls) items(env wire.Envelope) {
	cs.mu.Lock()
	item := cs.m[env.ID].item
	cs.mu.Unlock()
	if item != nil {
		item(env)
	}
}

func (cs *calls) waiting(id uint64) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	_, ok := cs.m[id]
	return ok
}

// failure is why the connection ended, once it has.
func (cs *calls) failure() error {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.ended
}

// answer hands env to the call waiting for it; the answer to a call that gave
// up is dropped.
func (cs *calls) answer(env wire.Envelope) {
	if done := cs.take(env.ID); done != nil {
		done(env, nil)
	}
}

// end fails every call still waiting, and every later one, with err: the
// connection ended.
func (cs *calls) end(err error) {
	cs.mu.Lock()
	cs.ended = err
	m := cs.m
	cs.m = nil
	cs.mu.Unlock()
	for _, w := range m {
		w.done(wire.Envelope{}, err)
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

// tryWrite writes frame whole at once when no other write is under way and
// the stream may take it now (flow control), and says whether it did: a
// request then goes out without waking the stream's writer.
func (m *muxStream) tryWrite(frame []byte) bool {
	if !m.mu.TryLock() {
		return false
	}
	defer m.mu.Unlock()
	return m.s.TryWriteAll(frame) == nil
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
	q.queue = make(chan outFrame, outQueue)
	q.requests = make(chan *exchange)
	q.wg.Go(q.readAnswers)
	q.wg.Go(q.writeRequests)
	q.wg.Go(func() {
		in, err := q.qc.AcceptStream(q.qc.Context())
		if err == nil {
			q.readRequests(&muxStream{s: in})
		}
	})
	return nil
}

// outFrame is a request, or a link.cancel, for this end's request stream.
type outFrame struct {
	id     uint64
	cancel bool
	frame  []byte
}

// outQueue holds the frames this end's request stream has not written yet:
// its requests are bounded by MaxInFlight, and a link.cancel frees a slot for
// another, so twice that leaves room for both.
const outQueue = 2 * MaxInFlight

// writeRequests writes what could not go on this end's request stream at once
// (tryWrite), and every link.cancel, so a cancel never overtakes its request:
// whatever is queued at once goes in one write, and a request given up before
// its turn is not sent at all.
// A write that fails may have sent part of a frame, after which nothing on the
// stream could be read, so it ends the link; so does one that does not finish
// within writeWait (the peer reads nothing).
func (q *quicCarrier) writeRequests() {
	gone := q.qc.Context().Done()
	var buf []byte
	for {
		buf = buf[:0]
		select {
		case f := <-q.queue:
			buf = q.appendOut(buf, f)
		case <-gone:
			return
		}
	more:
		for len(buf) < muxBatch {
			select {
			case f := <-q.queue:
				buf = q.appendOut(buf, f)
			default:
				break more
			}
		}
		if len(buf) == 0 {
			continue
		}
		if q.out.write(q, buf) != nil {
			return
		}
	}
}

// muxBatch is how much one write of the request stream gathers.
const muxBatch = 64 << 10

func (q *quicCarrier) appendOut(buf []byte, f outFrame) []byte {
	if !f.cancel && !q.calls.waiting(f.id) {
		return buf // given up, or failed, before its turn
	}
	return append(buf, f.frame...)
}

// enqueue hands a frame to the request stream's writer without waiting; when
// its queue is full (the peer is not reading) a goroutine waits for room, until
// the link ends.
func (q *quicCarrier) enqueue(f outFrame) {
	select {
	case q.queue <- f:
		return
	default:
	}
	go func() {
		select {
		case q.queue <- f:
		case <-q.qc.Context().Done():
		}
	}()
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
			if cause := context.Cause(q.qc.Context()); cause != nil {
				err = cause
			}
			q.calls.end(fmt.Errorf("%w: %w", ErrClosed, err))
			return
		}
		if env.Kind == wire.KindEvt && env.Op == wire.OpCommFileItems {
			q.calls.items(env)
			continue
		}
		if env.Kind != wire.KindRes {
			why := fmt.Sprintf("a %s %s frame came where only answers and %s belong", env.Kind, env.Op, wire.OpCommFileItems)
			q.shut(closeProtocol, why)
			q.calls.end(fmt.Errorf("%w: %s", ErrClosed, why))
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
				partial: func(frame []byte) error {
					if ctx.Err() != nil {
						return ctx.Err()
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

// muxStart queues one request for this end's request stream; its answer
// comes off that stream (readAnswers). A call given up is told to the peer
// (link.cancel), so its handler's ctx ends as a reset stream's does.
func (q *quicCarrier) muxStart(id uint64, frame []byte, done func(wire.Envelope, error), item func(wire.Envelope)) (cancel func()) {
	if !q.calls.add(id, done, item) {
		done(wire.Envelope{}, q.calls.failure())
		return func() {}
	}
	if !q.out.tryWrite(frame) {
		q.enqueue(outFrame{id: id, frame: frame})
	}
	return func() {
		done := q.calls.take(id)
		if done == nil {
			return // answered already
		}
		done(wire.Envelope{}, context.Canceled)
		if f, err := wire.EncodeFrame(id, wire.KindEvt, wire.OpLinkCancel, nil); err == nil {
			q.enqueue(outFrame{id: id, cancel: true, frame: f})
		}
	}
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
