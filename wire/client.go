package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// ErrClosed is wrapped by every call that fails because the connection ended
// before its answer came.
var ErrClosed = errors.New("the connection to the daemon closed")

// Client is one connection to a daemon after an accepted hello. Calls may run
// concurrently; each gets its own id and its answer is matched by that id.
type Client struct {
	conn  net.Conn
	hello HelloOK

	// frames is unbuffered: a frame handed over is being written, so a call that
	// gives up on ctx before the handover has sent nothing.
	frames chan []byte

	mu      sync.Mutex
	nextID  uint64
	pending map[uint64]chan Envelope
	streams map[uint64]func(Envelope) // the event handlers of streaming calls, by id
	err     error                     // why the connection ended; set once, under mu

	done      chan struct{} // closed by fail: wakes every waiting call
	closeOnce sync.Once
	wg        sync.WaitGroup // the reader and the writer
}

// Dial connects to the daemon's Unix socket, says hello and reads its answer. A
// refused hello is a *Refusal carrying the daemon's words. ctx bounds the dial
// and the hello exchange.
func Dial(ctx context.Context, socketPath string, hello Hello) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socketPath)
	if err != nil {
		return nil, err
	}
	c, err := handshake(ctx, conn, hello)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

const helloID = 1

func handshake(ctx context.Context, conn net.Conn, hello Hello) (*Client, error) {
	// The exchange is synchronous, so the connection's own deadline carries ctx's
	// until the reader and writer take over.
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := NewWriter(conn).Write(helloID, KindReq, OpHello, hello); err != nil {
		return nil, ctxErr(ctx, fmt.Errorf("send hello: %w", err))
	}
	r := NewReader(conn)
	env, err := r.Read()
	if err != nil {
		return nil, ctxErr(ctx, fmt.Errorf("read the answer to hello: %w", err))
	}
	var ok HelloOK
	if err := answer(env, &ok); err != nil {
		return nil, err
	}
	if !stop() {
		return nil, ctx.Err() // ctx ended as the answer came; its deadline is already set
	}
	conn.SetDeadline(time.Time{})
	c := &Client{
		conn:    conn,
		hello:   ok,
		frames:  make(chan []byte),
		nextID:  helloID,
		pending: map[uint64]chan Envelope{},
		streams: map[uint64]func(Envelope){},
		done:    make(chan struct{}),
	}
	c.wg.Add(2)
	go c.read(r)
	go c.write()
	return c, nil
}

// Hello is the daemon's answer to this connection's hello.
func (c *Client) Hello() HelloOK { return c.hello }

// Call sends one request and waits for its answer, decoding a success into resp
// (which may be nil) and a refusal into a *Refusal. ctx bounds the wait; an
// abandoned call leaves the connection usable, and its late answer is dropped.
func (c *Client) Call(ctx context.Context, op string, req, resp any) error {
	return c.Stream(ctx, op, req, resp, nil)
}

// Stream is Call for an op that sends events (evt frames carrying the
// request's id) before its answer: each is handed to onEvent, in order, on the
// connection's reader, so onEvent must not block for long.
func (c *Client) Stream(ctx context.Context, op string, req, resp any, onEvent func(Envelope)) error {
	ch := make(chan Envelope, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	if onEvent != nil {
		c.streams[id] = onEvent
	}
	c.mu.Unlock()
	defer c.forget(id)

	frame, err := EncodeFrame(id, KindReq, op, req)
	if err != nil {
		return err
	}
	select {
	case c.frames <- frame:
	case <-c.done:
		return c.failure()
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case env := <-ch:
		return answer(env, resp)
	case <-c.done:
		// The reader hands an answer over before it closes done, so one that
		// came just before the connection ended is waiting here: it decides,
		// as a daemon's last word before it closes must.
		select {
		case env := <-ch:
			return answer(env, resp)
		default:
			return c.failure()
		}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close ends the connection and waits for its reader and writer to stop.
func (c *Client) Close() error {
	c.fail(fmt.Errorf("%w: closed by this client", ErrClosed))
	c.wg.Wait()
	return nil
}

func (c *Client) write() {
	defer c.wg.Done()
	for {
		select {
		case f := <-c.frames:
			if _, err := c.conn.Write(f); err != nil {
				c.fail(fmt.Errorf("%w: %v", ErrClosed, err))
				return
			}
		case <-c.done:
			return
		}
	}
}

func (c *Client) read(r *Reader) {
	defer c.wg.Done()
	// A refusal no call waits for (id 0, or a call already abandoned) is the
	// daemon's last word before it closes; it is why every later call fails.
	var lastWord error
	for {
		env, err := r.Read()
		if err != nil {
			if lastWord == nil {
				lastWord = fmt.Errorf("%w: %v", ErrClosed, err)
			}
			c.fail(lastWord)
			return
		}
		if env.Kind != KindRes {
			// A streaming call's events carry its id; other notices have no
			// caller waiting on them.
			c.mu.Lock()
			onEvent := c.streams[env.ID]
			c.mu.Unlock()
			if env.Kind == KindEvt && env.ID != 0 && onEvent != nil {
				onEvent(env)
			}
			continue
		}
		c.mu.Lock()
		ch, ok := c.pending[env.ID]
		delete(c.pending, env.ID)
		c.mu.Unlock()
		if ok {
			ch <- env
			continue
		}
		if err := answer(env, nil); err != nil && env.ID == 0 {
			lastWord = err
		}
	}
}

// fail records why the connection ended (the first reason wins), closes it and
// wakes every waiting call.
func (c *Client) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
	c.closeOnce.Do(func() {
		close(c.done)
		c.conn.Close()
	})
}

func (c *Client) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *Client) forget(id uint64) {
	c.mu.Lock()
	delete(c.pending, id)
	delete(c.streams, id)
	c.mu.Unlock()
}

// answer turns a response frame into resp, or into a *Refusal when its payload
// is a refusal.
func answer(env Envelope, resp any) error {
	var refusal Error
	if mayRefuse(env.Payload) {
		if err := json.Unmarshal(env.Payload, &refusal); err == nil && refusal.Error != "" {
			return &Refusal{Op: env.Op, Code: refusal.Code, Sentence: refusal.Error}
		}
	}
	if resp == nil {
		return nil
	}
	return DecodePayload(env.Payload, resp)
}

// mayRefuse says whether payload may hold a refusal's "error" key, so that an
// answer that cannot is read once, not twice. Unmarshal matches a key in any
// case, and an escape may spell it: a payload is surely no refusal only when
// it holds neither the word, in any case, nor a backslash.
func mayRefuse(payload []byte) bool {
	const key = "error"
	if bytes.IndexByte(payload, '\\') >= 0 {
		return true
	}
	for i := 0; i+len(key) <= len(payload); i++ {
		if payload[i]|0x20 == 'e' && bytes.EqualFold(payload[i:i+len(key)], []byte(key)) {
			return true
		}
	}
	return false
}

// ctxErr prefers ctx's own error when ctx is why an I/O call failed. The
// connection's deadline is ctx's, and may fire a moment before ctx's own timer.
func ctxErr(ctx context.Context, err error) error {
	cause := ctx.Err()
	if dl, ok := ctx.Deadline(); cause == nil && ok && !time.Now().Before(dl) {
		cause = context.DeadlineExceeded
	}
	if cause == nil {
		return err
	}
	return fmt.Errorf("%w (%v)", cause, err)
}
