package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/sotcomm/sotd/daemon/internal/workspace"
	"github.com/sotcomm/sotd/wire"
)

// Connection bounds.
const (
	writeWait   = 10 * time.Second // a peer that reads nothing is closed
	maxInFlight = 64               // requests one connection may have unanswered; more wait unread

	// keptWorkers is how many of a connection's workers wait for its next
	// request once they have answered; a busier moment starts more, which end
	// when they find this many waiting.
	keptWorkers = 2

	// idleWait closes a cli connection that has nothing in flight and sends
	// nothing (Daemon.idleWait). A CLI verb dials, asks, and closes once
	// answered: its longest wait is the inbox lock's plus 3 s, doctor's pauses
	// between its calls are shorter still, so a minute of silence is a client
	// that forgot its connection. The agent, fe and link roles are not bound:
	// a frontend or a reference client holds one connection (stdio-bridge) for
	// a window's or a session's life and may be quiet between a person's acts.
	idleWait = time.Minute
	// maxConns is how many connections the socket serves at once
	// (Daemon.maxConns); the next waits in the listen backlog until one
	// closes, so a runaway client cannot spend the daemon's descriptors.
	maxConns = 256

	// helloHold is how long the answer to a hello that came with a request
	// waits to go out with that request's answer, in one write: the client
	// is woken once for both. A request answered later (a filing that waits
	// for its inbox lock) lets the hello's answer go alone after it.
	helloHold = time.Millisecond
)

// stoppingSentence answers a request read after the daemon was told to stop.
const stoppingSentence = "the daemon is stopping, so this request was not served — nothing was done; send it again when the daemon is back"

// conn is one admitted-or-not connection. Its reader runs in serve and hands
// each request to a worker that waits for one, or to a new worker when none
// waits, so a slow inbox never delays another answer. A connection that keeps
// asking is answered by the same few goroutines, whose stacks have grown to what
// a request takes, rather than by a fresh one per request that grows its own.
type conn struct {
	d  *Daemon
	nc *net.UnixConn
	r  *wire.Reader
	w  *wire.Writer

	work    chan job     // unbuffered: a send succeeds only when a worker waits
	waiting atomic.Int32 // workers waiting on work, or about to

	// gone ends when the connection's reader has stopped (the peer left, or
	// the daemon stops), so a streaming request (pty.attach) ends with it.
	gone context.Context
	// peer is the connected process, as the kernel recorded it at connect; 0
	// where the OS does not tell. Set at admit, before any request.
	peer int
	// heldHello sends the hello's answer held for the first request's
	// (Daemon.helloHold), if that one is not written first; nil when none
	// was held.
	heldHello *time.Timer

	mu       sync.Mutex
	stopping bool          // set when the daemon stops: reads end, answers still go out
	idle     time.Duration // how long the connection may wait with nothing open; 0: unbound
	open     int           // requests read and not yet answered
}

func newConn(d *Daemon, nc *net.UnixConn) *conn {
	r := readers.Get().(*wire.Reader)
	r.Reset(nc)
	return &conn{d: d, nc: nc, r: r, w: wire.NewWriter(&deadlineWriter{nc: nc}), work: make(chan job)}
}

// readers keeps connections' read buffers (wire.NewReader's 64 KiB) from one
// connection to the next: a command's connection lives for one ask, and a
// fresh buffer for each was a large share of the daemon's CPU for that ask
// (its allocation, clearing and the pages it faulted in).
var readers = sync.Pool{New: func() any { return wire.NewReader(nil) }}

// release gives the read buffer back once serve has stopped reading.
func (c *conn) release() {
	c.r.Reset(nil)
	readers.Put(c.r)
	c.r = nil
}

// deadlineWriter bounds every write, so a peer that stops reading cannot hold an
// answer, or the daemon's stop, forever: each write may take at least
// writeWait-writeSlack, at most writeWait. The deadline moves only once it is
// nearer than that, so a connection that answers often does not reset a timer
// per answer. The wire.Writer serialises its writes.
type deadlineWriter struct {
	nc    *net.UnixConn
	until time.Time // the write deadline set last
}

const writeSlack = time.Second

func (w *deadlineWriter) Write(p []byte) (int, error) {
	if now := time.Now(); w.until.Sub(now) < writeWait-writeSlack {
		w.until = now.Add(writeWait)
		w.nc.SetWriteDeadline(w.until)
	}
	return w.nc.Write(p)
}

// setReadDeadline sets t unless the daemon is stopping, whose deadline (now)
// must not be undone.
func (c *conn) setReadDeadline(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopping {
		c.nc.SetReadDeadline(t)
	}
}

// stop ends reading; requests already read are still answered.
func (c *conn) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopping = true
	c.nc.SetReadDeadline(time.Unix(1, 0))
}

// began marks a request read: the connection is not idle until it is answered.
func (c *conn) began() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.open++
	if c.idle > 0 && !c.stopping {
		c.nc.SetReadDeadline(time.Time{})
	}
}

// ended marks a request answered; the last one open starts the idle wait.
func (c *conn) ended() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.open--
	c.waitIdleLocked()
}

func (c *conn) waitIdleLocked() {
	if c.open == 0 && c.idle > 0 && !c.stopping {
		c.nc.SetReadDeadline(time.Now().Add(c.idle))
	}
}

// handler answers one request; ctx is its connection's (see serve).
type handler func(ctx context.Context) (any, error)

// job is a request read and decoded, for a worker to answer.
type job struct {
	env wire.Envelope
	run handler
}

// serve admits the peer, then reads its requests until it stops sending, the
// daemon stops, or a frame cannot be acted on, and answers each one.
//
// Every request runs under the connection's context, which ends when the
// daemon stops or the client hangs up, so a forward, an offer or a receipts
// fan-out made for a client that is gone is given up rather than waited out.
func (c *conn) serve(ctx context.Context) {
	defer c.release()
	defer c.nc.Close()
	defer context.AfterFunc(ctx, c.stop)()
	role, ok := c.admit()
	if !ok {
		return
	}
	if c.heldHello != nil {
		defer c.heldHello.Stop()
	}
	if role == wire.RoleCLI {
		c.mu.Lock()
		c.idle = c.d.idleWait
		c.waitIdleLocked()
		c.mu.Unlock()
	}
	reqCtx, hangUp := context.WithCancel(ctx)
	defer hangUp()
	var workers sync.WaitGroup
	defer c.untilAnswered(&workers, hangUp)
	// gone ends when the client has left (its reader ended) or as reqCtx does:
	// a stream (pty.attach) ends with it. Cancelled before the wait above,
	// which a stream would otherwise hold.
	gone, left := context.WithCancel(reqCtx)
	defer left()
	defer close(c.work) // the waiting workers end; the busy ones once answered
	c.gone = gone
	slots := semaphore.NewWeighted(maxInFlight)
	for {
		env, err := c.r.Read()
		if err != nil {
			c.readFailed(err)
			return
		}
		c.began()
		if ctx.Err() != nil {
			c.refuse(env.ID, env.Op, wire.CodeShuttingDown, stoppingSentence)
			c.ended()
			continue
		}
		if env.Kind != wire.KindReq {
			c.badFrame(env.ID, env.Op, fmt.Sprintf("a %s frame came where a client sends only requests (req)", env.Kind))
			return
		}
		run, err := c.request(env)
		if err != nil {
			if r, ok := wire.RefusalOf(err); ok {
				c.refuse(env.ID, env.Op, r.Code, r.Sentence)
				c.ended()
				continue
			}
			c.badFrame(env.ID, env.Op, err.Error())
			return
		}
		if slots.Acquire(ctx, 1) != nil {
			c.refuse(env.ID, env.Op, wire.CodeShuttingDown, stoppingSentence)
			c.ended()
			continue
		}
		j := job{env: env, run: run}
		select {
		case c.work <- j:
		default:
			workers.Go(func() { c.worker(reqCtx, j, slots) })
		}
	}
}

// worker answers j, then the requests handed to it while it is one of the
// keptWorkers waiting, until the connection's reading ends.
func (c *conn) worker(ctx context.Context, j job, slots *semaphore.Weighted) {
	for {
		c.answer(ctx, j.env, j.run)
		c.ended()
		slots.Release(1)
		if c.waiting.Add(1) > keptWorkers {
			c.waiting.Add(-1)
			return
		}
		next, ok := <-c.work
		c.waiting.Add(-1)
		if !ok {
			return
		}
		j = next
	}
}

// hangupEvery is how often a connection whose client stopped sending, with
// requests still open, is looked at for the client having hung up.
const hangupEvery = 100 * time.Millisecond

// untilAnswered waits for the requests still open once reading ended, and
// gives them up (hangUp) as soon as the client hangs up. The end of reading
// alone does not say so: a client may close only its sending half and read on
// (stdio-bridge does at the end of its input), so the peer's whole socket
// closing is what counts (hungUp).
func (c *conn) untilAnswered(workers *sync.WaitGroup, hangUp context.CancelFunc) {
	c.mu.Lock()
	open := c.open
	c.mu.Unlock()
	if open == 0 {
		// Every request read is answered (a command's one ask, as a
		// rule): the workers are past their last answer, so nothing waits
		// on the client, and they end as soon as they see work closed.
		workers.Wait()
		return
	}
	answered := make(chan struct{})
	go func() {
		workers.Wait()
		close(answered)
	}()
	tick := time.NewTicker(hangupEvery)
	defer tick.Stop()
	for {
		select {
		case <-answered:
			return
		default:
		}
		if hungUp(c.nc) {
			hangUp()
			<-answered
			return
		}
		select {
		case <-answered:
			return
		case <-tick.C:
		}
	}
}

// request decodes env's payload for its op (opTable). A bad payload is a
// frame error (the connection closes); an op this daemon does not serve is a
// Refusal (it stays open).
func (c *conn) request(env wire.Envelope) (handler, error) {
	if o, ok := ops[env.Op]; ok {
		return o.read(c, env)
	}
	return nil, wire.Refuse(wire.CodeUnknownOp, "unknown op: %s", env.Op)
}

// stream is what a streaming request needs of the connection: its end, and
// events carrying the request's id.
func (c *conn) stream(id uint64) workspace.Stream {
	return workspace.Stream{Peer: c.peer, Gone: c.gone, Emit: func(op string, v any) error { return c.w.Write(id, wire.KindEvt, op, v) }}
}

func (c *conn) answer(ctx context.Context, env wire.Envelope, run handler) {
	resp, err := run(ctx)
	if err != nil {
		r := wire.AsRefusal(err)
		c.refuse(env.ID, env.Op, r.Code, r.Sentence)
		return
	}
	if err := c.w.Write(env.ID, wire.KindRes, env.Op, resp); err != nil {
		c.d.log.Debug("answer not sent", "op", env.Op, "err", err)
	}
}

func (c *conn) refuse(id uint64, op, code, sentence string) {
	if err := c.w.WriteError(id, op, code, sentence); err != nil {
		c.d.log.Debug("refusal not sent", "op", op, "code", code, "err", err)
	}
}

// readFailed answers a bad frame before the connection closes; a peer that left,
// one idle past its bound, or a daemon that stops, gets nothing.
func (c *conn) readFailed(err error) {
	var ne net.Error
	switch {
	case errors.Is(err, wire.ErrFrame):
		c.badFrame(0, wire.OpError, err.Error())
	case errors.As(err, &ne) && ne.Timeout() && !c.isStopping():
		c.d.log.Debug("idle connection closed", "idle", c.d.idleWait)
	}
}

// badFrame answers a frame that cannot be acted on; the caller then closes.
func (c *conn) badFrame(id uint64, op, why string) {
	c.d.log.Info("bad frame; connection closed", "why", why)
	c.refuse(id, op, wire.CodeBadFrame, why)
}

// admit checks the peer's OS user and its hello, and returns the hello's role;
// nothing is served before both pass. A refused peer gets one hello_refused
// frame, then the connection closes.
func (c *conn) admit() (role string, admitted bool) {
	pid, reason := c.d.checkPeer(c.nc)
	if reason != "" {
		c.refuseHello(0, wire.OpError, reason)
		return "", false
	}
	c.peer = pid
	c.setReadDeadline(time.Now().Add(c.d.helloWait))
	env, err := c.r.Read()
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() && !c.isStopping() {
			c.refuseHello(0, wire.OpError, fmt.Sprintf("no hello came within %s", c.d.helloWait))
			return "", false
		}
		c.readFailed(err)
		return "", false
	}
	c.setReadDeadline(time.Time{})
	h, r := socketDoor.Admit(env)
	if r == nil {
		if why := c.d.checkUser(h); why != "" {
			r = wire.Refuse(wire.CodeHelloRefused, "%s", why)
		}
	}
	switch {
	case r != nil && r.Code == wire.CodeBadFrame:
		c.badFrame(env.ID, env.Op, r.Sentence)
		return "", false
	case r != nil:
		c.refuseHello(env.ID, env.Op, r.Sentence)
		return "", false
	}
	ok := wire.HelloOK{Host: c.d.cfg.Host, Protocol: wire.Protocol, Daemon: "sotd"}
	if c.r.Buffered() > 0 {
		// The client sent a request with its hello (wire.CallOnce).
		if err := c.w.Hold(env.ID, wire.KindRes, wire.OpHello, ok); err != nil {
			return "", false
		}
		c.heldHello = time.AfterFunc(c.d.helloHold, func() { c.w.Flush() })
	} else if err := c.w.Write(env.ID, wire.KindRes, wire.OpHello, ok); err != nil {
		return "", false
	}
	c.d.log.Debug("hello accepted", "role", h.Role, "host", h.Host, "name", h.Name)
	return h.Role, true
}

func (c *conn) refuseHello(id uint64, op, reason string) {
	c.d.log.Info("hello refused", "why", reason)
	c.refuse(id, op, wire.CodeHelloRefused, reason)
}

func (c *conn) isStopping() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopping
}
