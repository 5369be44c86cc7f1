package link

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/coder/websocket"

	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/wire"
)

// wsPath is where the hub's WebSocket listener takes links.
const wsPath = "/link"

// wsCarrier is a link over one WebSocket: every envelope one text message,
// requests and answers matched by id (each end's ids are its own: an answer
// always answers the receiver's request), and hello and events as the control
// stream.
type wsCarrier struct {
	wc   *websocket.Conn
	addr string

	ctx    context.Context // ends when the connection does; its cause is why
	cancel context.CancelCauseFunc
	frames chan []byte // to the writer; unbuffered, so a handed-over frame is being written

	control  chan wire.Envelope
	requests chan *exchange
	calls    calls

	wg sync.WaitGroup // the reader and the writer
}

// controlQueue holds control frames the link has not taken yet (a hub reads
// them only once its owner has the link); more hold the reader back.
const controlQueue = 16

func newWSCarrier(wc *websocket.Conn, addr string) *wsCarrier {
	wc.SetReadLimit(wire.MaxFrame)
	ctx, cancel := context.WithCancelCause(context.Background())
	w := &wsCarrier{
		wc:       wc,
		addr:     addr,
		ctx:      ctx,
		cancel:   cancel,
		frames:   make(chan []byte),
		control:  make(chan wire.Envelope, controlQueue),
		requests: make(chan *exchange, MaxInFlight),
	}
	w.wg.Go(w.read)
	w.wg.Go(w.write)
	return w
}

func (w *wsCarrier) kind() string          { return "ws" }
func (w *wsCarrier) remote() string        { return w.addr }
func (w *wsCarrier) gone() <-chan struct{} { return w.ctx.Done() }

// silent: a WebSocket has no idle timer of its own; the heartbeat's judge
// finds a silent peer.
func (w *wsCarrier) silent(err error) bool { return errors.Is(err, errSilent) }

// shut ends the connection without waiting; the reader and writer call it.
func (w *wsCarrier) shut(err error) {
	w.cancel(fmt.Errorf("%w: %v", ErrClosed, err))
	w.wc.CloseNow()
}

// close ends the connection and waits for the reader and writer. The reason
// stays here: a WebSocket close handshake would wait on a dead peer.
func (w *wsCarrier) close(_ closeCode, reason string) {
	w.shut(errors.New("closed by this box: " + reason))
	w.wg.Wait()
}

func (w *wsCarrier) failure() error { return context.Cause(w.ctx) }

func (w *wsCarrier) write() {
	for {
		select {
		case f := <-w.frames:
			ctx, cancel := context.WithTimeout(w.ctx, writeWait)
			err := w.wc.Write(ctx, websocket.MessageText, f)
			cancel()
			if err != nil {
				w.shut(err)
				return
			}
		case <-w.ctx.Done():
			return
		}
	}
}

func (w *wsCarrier) read() {
	defer func() { w.calls.end(w.failure()) }()
	for {
		_, msg, err := w.wc.Read(w.ctx)
		if err != nil {
			w.shut(err)
			return
		}
		env, err := wire.Decode(bytes.TrimSuffix(msg, []byte("\n")))
		if err != nil {
			w.shut(err)
			return
		}
		switch {
		case env.Kind == wire.KindEvt && env.Op == wire.OpCommFileItems:
			w.calls.items(env)
		case env.Kind == wire.KindEvt || env.Op == wire.OpHello:
			select {
			case w.control <- env:
			case <-w.ctx.Done():
				return
			}
		case env.Kind == wire.KindRes:
			w.calls.answer(env)
		default:
			w.request(env)
		}
	}
}

// request queues one of the peer's requests, or refuses it as busy when the peer
// already has MaxInFlight waiting: it did not wait for its own bound.
func (w *wsCarrier) request(env wire.Envelope) {
	ex := &exchange{
		ctx:     w.ctx,
		read:    func() (wire.Envelope, error) { return env, nil },
		reply:   w.send,
		partial: w.send,
		abort:   func() {},
	}
	select {
	case w.requests <- ex:
	default:
		f, _ := wire.EncodeFrame(env.ID, wire.KindRes, env.Op, wire.Error{
			Error: fmt.Sprintf("the link already carries %d requests; nothing was done — send it again in a moment", MaxInFlight),
			Code:  wire.CodeBusy,
		})
		w.send(f)
	}
}

func (w *wsCarrier) send(frame []byte) error {
	select {
	case w.frames <- frame:
		return nil
	case <-w.ctx.Done():
		return w.failure()
	}
}

// recv prefers a frame already read to the news that the connection ended, so a
// hub's last word (a refused hello) is not lost to its close.
func (w *wsCarrier) recv() (wire.Envelope, error) {
	select {
	case env := <-w.control:
		return env, nil
	case <-w.ctx.Done():
		select {
		case env := <-w.control:
			return env, nil
		default:
			return wire.Envelope{}, w.failure()
		}
	}
}

func (w *wsCarrier) start(id uint64, frame []byte, done func(wire.Envelope, error), item func(wire.Envelope)) (cancel func()) {
	if !w.calls.add(id, done, item) {
		done(wire.Envelope{}, w.failure())
		return func() {}
	}
	// The writer takes one frame at a time; when it is busy, a goroutine
	// waits to hand this one over, so the caller never does.
	select {
	case w.frames <- frame:
	default:
		go func() {
			select {
			case w.frames <- frame:
			case <-w.ctx.Done():
			}
		}()
	}
	return func() {
		if done := w.calls.take(id); done != nil {
			done(wire.Envelope{}, context.Canceled)
		}
	}
}

// multiplex is how a WebSocket link always carries its requests.
func (w *wsCarrier) multiplex() error { return nil }

func (w *wsCarrier) accept(ctx context.Context) (*exchange, error) {
	select {
	case ex := <-w.requests:
		return ex, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-w.ctx.Done():
		return nil, w.failure()
	}
}

// dialWS links to the hub over WebSocket on TLS, with the same pinned keys.
func dialWS(ctx context.Context, cfg Config, t Target) (*Conn, error) {
	tr := &http.Transport{TLSClientConfig: t.tls(), TLSHandshakeTimeout: wire.HelloWait}
	defer tr.CloseIdleConnections()
	wc, resp, err := websocket.Dial(ctx, "wss://"+t.WSAddr+wsPath, &websocket.DialOptions{HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusForbidden {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
			return nil, refuse("the hub at %s refused this box: %s", t.WSAddr, strings.TrimSpace(string(body)))
		}
		var pe identity.PinError
		switch {
		case errors.As(err, &pe):
			return nil, refuse("this box refused the hub at %s: %w", t.WSAddr, pe)
		case keyRefused(err):
			return nil, refusedKey(t, t.WSAddr, err)
		}
		return nil, fmt.Errorf("WebSocket to the hub at %s: %w", t.WSAddr, err)
	}
	return handshake(ctx, cfg, t, newWSCarrier(wc, t.WSAddr))
}
