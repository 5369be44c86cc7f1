package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// Connection bounds.
const (
	helloWait   = 10 * time.Second // a peer that says nothing is closed (Daemon.helloWait)
	writeWait   = 10 * time.Second // a peer that reads nothing is closed
	maxInFlight = 64               // requests one connection may have unanswered; more wait unread

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
)

// stoppingSentence answers a request read after the daemon was told to stop.
const stoppingSentence = "the daemon is stopping, so this request was not served — nothing was done; send it again when the daemon is back"

// conn is one admitted-or-not connection. Its reader runs in serve; each request
// is answered by its own goroutine, so a slow inbox never delays another answer.
type conn struct {
	d  *Daemon
	nc *net.UnixConn
	b  *batcher
	r  *wire.Reader
	w  *wire.Writer

	// gone ends when the connection's reader has stopped (the peer left, or
	// the daemon stops), so a streaming request (pty.attach) ends with it.
	gone context.Context

	mu       sync.Mutex
	stopping bool          // set when the daemon stops: reads end, answers still go out
	idle     time.Duration // how long the connection may wait with nothing open; 0: unbound
	open     int           // requests read and not yet answered
}

func newConn(d *Daemon, nc *net.UnixConn, b *batcher) *conn {
	return &conn{d: d, nc: nc, b: b, r: wire.NewReader(nc), w: wire.NewWriter(deadlineWriter{nc})}
}

// deadlineWriter bounds every write, so a peer that stops reading cannot hold an
// answer, or the daemon's stop, forever. The wire.Writer serialises its writes.
type deadlineWriter struct{ nc *net.UnixConn }

func (w deadlineWriter) Write(p []byte) (int, error) {
	w.nc.SetWriteDeadline(time.Now().Add(writeWait))
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

func (c *conn) serve(ctx context.Context) {
	defer c.nc.Close()
	defer context.AfterFunc(ctx, c.stop)()
	role, ok := c.admit()
	if !ok {
		return
	}
	if role == wire.RoleCLI {
		c.mu.Lock()
		c.idle = c.d.idleWait
		c.waitIdleLocked()
		c.mu.Unlock()
	}
	var inflight sync.WaitGroup
	defer inflight.Wait()
	gone, left := context.WithCancel(ctx)
	defer left() // before the wait above, which a stream would otherwise hold
	c.gone = gone
	slots := make(chan struct{}, maxInFlight)
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
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			c.refuse(env.ID, env.Op, wire.CodeShuttingDown, stoppingSentence)
			c.ended()
			continue
		}
		inflight.Add(1)
		go func() {
			defer inflight.Done()
			defer func() { <-slots }()
			defer c.ended()
			c.answer(env, run)
		}()
	}
}

// request decodes env's payload for its op. A bad payload is a frame error (the
// connection closes); an op this daemon does not serve is a Refusal (it stays
// open).
func (c *conn) request(env wire.Envelope) (func() (any, error), error) {
	switch env.Op {
	case wire.OpCommFile:
		var req wire.CommFile
		if err := wire.DecodePayload(env.Payload, &req); err != nil {
			return nil, err
		}
		return func() (any, error) { return c.d.commFile(c.b, req) }, nil
	case wire.OpRegistryList:
		return c.d.registryList, nil
	case wire.OpLinkStatus:
		return c.d.linkStatus, nil
	case wire.OpCommReceipts:
		var req wire.CommReceipts
		if err := wire.DecodePayload(env.Payload, &req); err != nil {
			return nil, err
		}
		return func() (any, error) { return c.d.commReceipts(context.Background(), nil, req) }, nil
	case wire.OpHello:
		return nil, wire.Refuse(wire.CodeBadRequest, "this connection's hello was already accepted; send it once")
	}
	if run, ok, err := c.d.rows.request(env, c.stream(env.ID)); ok {
		return run, err
	}
	return nil, wire.Refuse(wire.CodeUnknownOp, "unknown op: %s", env.Op)
}

// stream is what a streaming request needs of the connection: its end, and
// events carrying the request's id.
func (c *conn) stream(id uint64) rowStream {
	return rowStream{gone: c.gone, emit: func(op string, v any) error { return c.w.Write(id, wire.KindEvt, op, v) }}
}

func (c *conn) answer(env wire.Envelope, run func() (any, error)) {
	resp, err := run()
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
	if reason := c.d.checkPeer(c.nc); reason != "" {
		c.refuseHello(0, wire.OpError, reason)
		return "", false
	}
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
	if env.Op != wire.OpHello || env.Kind != wire.KindReq {
		c.refuseHello(env.ID, env.Op, "the first frame must be hello")
		return "", false
	}
	var h wire.Hello
	if err := wire.DecodePayload(env.Payload, &h); err != nil {
		c.badFrame(env.ID, env.Op, err.Error())
		return "", false
	}
	if reason := c.d.checkHello(h); reason != "" {
		c.refuseHello(env.ID, env.Op, reason)
		return "", false
	}
	ok := wire.HelloOK{Host: c.d.cfg.Host, Protocol: wire.Protocol, Daemon: "sotd"}
	if err := c.w.Write(env.ID, wire.KindRes, wire.OpHello, ok); err != nil {
		return "", false
	}
	c.d.log.Debug("hello accepted", "role", h.Role, "host", h.Host, "name", h.Name)
	return h.Role, true
}

func (c *conn) refuseHello(id uint64, op, reason string) {
	c.d.log.Info("hello refused", "reason", reason)
	c.refuse(id, op, wire.CodeHelloRefused, reason)
}

func (c *conn) isStopping() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopping
}
