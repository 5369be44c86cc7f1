package link

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sotcomm/sotd/metrics"
	"github.com/sotcomm/sotd/wire"
)

// ErrClosed is wrapped by every error that says a link ended: Conn.Err, and a
// Call whose answer did not come because of it.
var ErrClosed = errors.New("the link is down")

// errSilent is a carrier's word that its transport found the peer silent for
// DeadAfter (QUIC's idle timer agrees with the heartbeat's judge).
var errSilent = errors.New("the peer went silent")

// Conn is one link after an accepted hello, over QUIC or WebSocket alike. Calls
// and events may be sent concurrently; the peer's requests are answered by the
// Config's Handler, each on its own, at most MaxInFlight at once.
type Conn struct {
	cfg       Config
	startOnce sync.Once
	log       *slog.Logger
	peer      string // the box at the other end
	car       carrier
	// ticks: both hellos agreed to Ticks, so the guest sends a directory event
	// on every poll. Set before the link starts.
	ticks bool
	// items: both hellos agreed to Items, so each end answers the items of
	// the other's comm.file.batch as they finish (BatchItems). Set before the
	// link starts.
	items bool
	// dialed: this end dialed the link (a guest's end), rather than accepted
	// it (a hub's). Set before the link starts.
	dialed bool

	slots   chan struct{} // this end's requests in flight
	nextID  atomic.Uint64
	born    time.Time
	heard   atomic.Int64 // time since born of the last control frame; monotonic
	timing  timing
	beatNow chan struct{} // the peer's first timed beat came: beat back now
	filing  filing        // comm.file requests gathered into batches (File)

	ctx    context.Context // ends with the link; its cause is why
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup
}

func newConn(cfg Config, peer string, car carrier) *Conn {
	ctx, cancel := context.WithCancelCause(context.Background())
	c := &Conn{
		cfg:     cfg,
		log:     cfg.Log.With("box", peer, "transport", car.kind()),
		peer:    peer,
		car:     car,
		slots:   make(chan struct{}, MaxInFlight),
		beatNow: make(chan struct{}, 1),
		ctx:     ctx,
		cancel:  cancel,
	}
	c.nextID.Store(helloID)
	return c
}

// start runs the link: the control reader, the heartbeat and the peer's requests.
// Start lets an accepted link run: from now on it reads its peer's frames,
// and its Handler and OnEvent are called. Accept's caller registers the link
// first (a hub's router), so the peer's first event (a guest's full
// directory, sent as soon as it linked) finds the link registered: one read
// before the registration was lost, and left a box's directory incomplete for
// the link's whole life. Later calls do nothing.
func (c *Conn) Start() { c.startOnce.Do(c.start) }

func (c *Conn) start() {
	c.born = time.Now() // the hello was just heard
	c.wg.Go(c.control)
	c.wg.Go(c.heartbeat)
	c.wg.Go(c.judge)
	c.wg.Go(c.serve)
}

// Box is the box at the other end of the link.
func (c *Conn) Box() string { return c.peer }

// Dialed says this end dialed the link, to a hub, rather than accepted it: a
// box that both serves links and dials other hubs tells the two apart by it
// from the link's first frame.
func (c *Conn) Dialed() bool { return c.dialed }

// Ticks says whether the guest promised, and the hub took, a directory event
// on every registry poll (Config.Ticks, wire.Hello.Ticks).
func (c *Conn) Ticks() bool { return c.ticks }

// Transport is "quic" or "ws".
func (c *Conn) Transport() string { return c.car.kind() }

// Health is the link's timing so far (see Health).
func (c *Conn) Health() Health { return c.timing.health() }

// RTT is the link's last measured round trip, 0 before the first sample.
func (c *Conn) RTT() time.Duration { return c.timing.health().RTT }

// Remote is the peer's network address.
func (c *Conn) Remote() string { return c.car.remote() }

// Done is closed when the link has ended.
func (c *Conn) Done() <-chan struct{} { return c.ctx.Done() }

// Err says why the link ended (wrapping ErrClosed), or nil while it is up.
func (c *Conn) Err() error { return context.Cause(c.ctx) }

// Close ends the link and waits until nothing of it runs; every handler must
// have honoured its ctx.
func (c *Conn) Close() error {
	c.fail(closeNormal, fmt.Errorf("%w: closed by %s", ErrClosed, c.cfg.Box))
	// A File that saw the link up has started its sender by now (see File).
	c.filing.mu.Lock()
	c.filing.mu.Unlock()
	c.wg.Wait()
	return nil
}

// fail ends the link for err; the first reason is the one kept.
func (c *Conn) fail(code closeCode, err error) {
	if c.ctx.Err() != nil {
		return
	}
	if code != closeDead && c.car.silent(err) {
		// One verdict for a silent peer, whichever goroutine met it first.
		code, err = closeDead, c.silent(c.cfg.DeadAfter)
	}
	c.cancel(err)
	c.car.close(code, err.Error())
}

// Call sends one request and waits for its answer, decoding a success into resp
// (which may be nil) and a refusal into a *wire.Refusal. ctx bounds the whole
// call, as its caller knows what the answer is worth waiting for (a forward
// or an offer: the inbox lock wait plus 1 s); without a deadline the link's
// own end bounds it. An abandoned call leaves the link up, and the peer's
// handler sees its ctx end (over QUIC).
func (c *Conn) Call(ctx context.Context, op string, req, resp any) error {
	return c.call(ctx, op, req, resp, nil)
}

// call is Call, with item, when not nil, given each comm.file.items event
// the peer sends for the request before its answer.
func (c *Conn) call(ctx context.Context, op string, req, resp any, item func(wire.Envelope)) error {
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return c.unanswered(ctx, op)
	case <-c.Done():
		return c.Err()
	}
	type result struct {
		env wire.Envelope
		err error
	}
	ch := make(chan result, 1)
	cancel, err := c.request(op, req, func(env wire.Envelope, err error) { ch <- result{env, err} }, item)
	if err != nil {
		return err
	}
	var r result
	select {
	case r = <-ch:
	case <-ctx.Done():
		cancel()
		return c.unanswered(ctx, op)
	}
	if errors.Is(r.err, ErrClosed) {
		c.fail(closeNormal, r.err)
		return c.Err()
	}
	return c.answered(op, r.env, r.err, resp)
}

// Go sends one request and returns at once, for a caller that asks many links
// at once (the hub's offer to every box) and would otherwise need a goroutine
// for each: done gets nil once resp holds the answer, else a *wire.Refusal or
// why no answer came (wrapping ErrClosed when the link ended), once. done runs
// on the link's reader, so it must not block, and resp must not be read before
// it ran. cancel gives up on the request, as a Call whose ctx ended does (the
// peer's handler is told over QUIC); done then gets context.Canceled unless the
// answer came first. When the link already has MaxInFlight requests out, the
// request waits for a slot in a goroutine of its own.
func (c *Conn) Go(op string, req, resp any, done func(error)) (cancel func()) {
	select {
	case c.slots <- struct{}{}:
	case <-c.Done():
		done(c.Err())
		return func() {}
	default:
		ctx, stop := context.WithCancel(c.ctx)
		go func() { done(c.Call(ctx, op, req, resp)) }()
		return stop
	}
	cancel, err := c.request(op, req, func(env wire.Envelope, err error) {
		if err == nil || !errors.Is(err, ErrClosed) {
			err = c.answered(op, env, err, resp)
		}
		done(err)
	}, nil)
	if err != nil {
		done(err)
		return func() {}
	}
	return cancel
}

// request sends one request, the caller holding one of the link's slots, which
// the answer frees; done gets the answer. An error is a request that could
// not be encoded: nothing was sent, and done is not called.
func (c *Conn) request(op string, req any, done func(wire.Envelope, error), item func(wire.Envelope)) (cancel func(), err error) {
	id := c.nextID.Add(1)
	frame, err := wire.EncodeFrame(id, wire.KindReq, op, req)
	if err != nil {
		<-c.slots
		return nil, err
	}
	return c.car.start(id, frame, func(env wire.Envelope, err error) {
		<-c.slots
		done(env, err)
	}, item), nil
}

// answered is what a call's answer (or the error in its place) says: resp
// decoded, a refusal, or what went wrong.
func (c *Conn) answered(op string, env wire.Envelope, err error, resp any) error {
	if err != nil {
		return fmt.Errorf("%s over the link to %s: %w", op, c.peer, err)
	}
	if env.Kind != wire.KindRes || env.Op != op {
		return fmt.Errorf("%w: %s answered a %s request with a %s %s frame", wire.ErrFrame, c.peer, op, env.Kind, env.Op)
	}
	return wire.Answer(env, resp)
}

func (c *Conn) unanswered(ctx context.Context, op string) error {
	return fmt.Errorf("%w: %s got no answer from %s over %s", ctx.Err(), op, c.peer, c.car.kind())
}

// SendEvent sends one control event (kind evt) to the peer, in order with the
// others.
func (c *Conn) SendEvent(op string, payload any) error {
	frame, err := wire.EncodeFrame(0, wire.KindEvt, op, payload)
	if err != nil {
		return err
	}
	if err := c.car.send(frame); err != nil {
		if c.ctx.Err() != nil {
			return c.Err()
		}
		return fmt.Errorf("send %s to %s: %w", op, c.peer, err)
	}
	return nil
}

func (c *Conn) control() {
	for {
		env, err := c.car.recv()
		switch {
		case errors.Is(err, errSilent):
			c.fail(closeDead, c.silent(c.cfg.DeadAfter))
			return
		case err != nil:
			c.fail(closeNormal, fmt.Errorf("%w: the control stream from %s ended: %v", ErrClosed, c.peer, err))
			return
		}
		c.heard.Store(int64(time.Since(c.born)))
		switch {
		case env.Kind != wire.KindEvt:
			c.fail(closeProtocol, fmt.Errorf("%w: %s sent a %s %s frame on the control stream, which carries only events", ErrClosed, c.peer, env.Kind, env.Op))
			return
		case env.Op == wire.OpLinkHeartbeat:
			c.heardBeat(env)
		case c.cfg.OnEvent != nil:
			c.cfg.OnEvent(c, env)
		}
	}
}

// heartbeat sends one beat at once, one each interval, and one more at once
// when the peer's first timed beat comes, so the first sample is taken within
// two round trips.
func (c *Conn) heartbeat() {
	t := time.NewTicker(c.cfg.Heartbeat)
	defer t.Stop()
	for {
		if err := c.SendEvent(wire.OpLinkHeartbeat, c.timing.beat(c.cfg.Now())); err != nil {
			c.fail(closeNormal, fmt.Errorf("%w: %w", ErrClosed, err))
			return
		}
		select {
		case <-c.Done():
			return
		case <-c.beatNow:
		case <-t.C:
		}
	}
}

// judge ends the link once the peer has said nothing for DeadAfter. It wakes
// when the last word heard would be that old rather than on the heartbeat's
// tick, so a silent peer is dead DeadAfter after its last word, not up to a
// beat later.
func (c *Conn) judge() {
	dead := c.cfg.DeadAfter
	t := time.NewTimer(dead)
	defer t.Stop()
	for {
		select {
		case <-c.Done():
			return
		case <-t.C:
		}
		silent := time.Since(c.born) - time.Duration(c.heard.Load())
		if silent >= dead {
			c.fail(closeDead, c.silent(silent))
			return
		}
		t.Reset(dead - silent)
	}
}

// silent is why a link whose peer said nothing for d ended.
func (c *Conn) silent(d time.Duration) error {
	return fmt.Errorf("%w: nothing from %s for %s (heartbeats every %s)", ErrClosed, c.peer, d.Round(time.Millisecond), c.cfg.Heartbeat)
}

// heardBeat takes the peer's heartbeat: its timing, when it carries any. A
// payload that does not decode is still a beat.
func (c *Conn) heardBeat(env wire.Envelope) {
	var b wire.LinkBeat
	if len(env.Payload) > 0 && wire.DecodePayload(env.Payload, &b) != nil {
		return
	}
	first, sampled, h := c.timing.heardBeat(b, c.cfg.Now())
	if first {
		select {
		case c.beatNow <- struct{}{}:
		default:
		}
	}
	if !sampled {
		return
	}
	metrics.LinkSample(c.peer, h.RTT, h.Offset)
	if c.cfg.OnHealth != nil {
		c.cfg.OnHealth(c, h)
	}
}

// serve answers the peer's requests, at most MaxInFlight at once (over QUIC
// without a request stream the peer cannot even open more streams), each on a
// worker of the link's: one that is idle takes it, else a new one while fewer
// than MaxInFlight run. A worker waits workerIdle for its next request before
// it ends, so a stream of requests reuses a few warm goroutines rather than
// starting, and growing the stack of, one for each.
func (c *Conn) serve() {
	work := make(chan *exchange) // to an idle worker
	workers := make(chan struct{}, MaxInFlight)
	for {
		ex, err := c.car.accept(c.ctx)
		if err != nil {
			c.fail(closeNormal, fmt.Errorf("%w: %w", ErrClosed, err))
			return
		}
		select {
		case work <- ex:
			continue
		default:
		}
		select {
		case workers <- struct{}{}:
			c.wg.Go(func() {
				defer func() { <-workers }()
				c.work(ex, work)
			})
		case work <- ex: // every worker is busy: the first one free takes it
		case <-c.Done():
			ex.abort()
			return
		}
	}
}

// workerIdle is how long a worker that answered a request waits for another.
const workerIdle = 2 * time.Second

func (c *Conn) work(ex *exchange, work <-chan *exchange) {
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		c.answer(ex)
		idle.Reset(workerIdle)
		select {
		case ex = <-work:
		case <-idle.C:
			return
		case <-c.Done():
			return
		}
	}
}

func (c *Conn) answer(ex *exchange) {
	env, err := ex.read()
	if err != nil {
		c.log.Debug("a request over the link could not be read", "err", err)
		ex.abort()
		return
	}
	var resp any
	switch {
	case env.Kind != wire.KindReq:
		resp = wire.Error{Error: fmt.Sprintf("a %s frame came where a request (req) belongs", env.Kind), Code: wire.CodeBadFrame}
	case c.cfg.Handler == nil:
		resp = wire.Error{Error: "unknown op: " + env.Op, Code: wire.CodeUnknownOp}
	default:
		resp, err = c.cfg.Handler(c.itemsCtx(ex, env), c, env.Op, env.Payload)
		if err != nil {
			resp = refusal(err)
		}
	}
	frame, err := wire.EncodeFrame(env.ID, wire.KindRes, env.Op, resp)
	if err != nil {
		frame, _ = wire.EncodeFrame(env.ID, wire.KindRes, env.Op, wire.Error{Error: "the answer could not be sent: " + err.Error(), Code: wire.CodeFileFailed})
	}
	if err := ex.reply(frame); err != nil {
		c.log.Debug("an answer over the link was not sent", "op", env.Op, "err", err)
	}
}

func refusal(err error) wire.Error {
	r := wire.AsRefusal(err)
	return wire.Error{Error: r.Sentence, Code: r.Code}
}
