package link

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/wire"
)

// quicCarrier is a link over one QUIC connection: a control stream the guest
// opened, and either one request stream per direction (multiplex, when the
// hello agreed to it) or one stream per request (a peer older than that).
type quicCarrier struct {
	qc      *quic.Conn
	control *quic.Stream
	r       *wire.Reader
	own     io.Closer // a guest's own transport and socket, closed with the link

	sendMu    sync.Mutex
	closeOnce sync.Once

	// Set by multiplex before the link starts; nil for one stream per request.
	out      *muxStream     // this end's requests, and their answers
	queue    chan outFrame  // frames for out, taken by its writer
	requests chan *exchange // the peer's requests, read off its stream
	calls    calls          // this end's requests waiting for their answers
	wg       sync.WaitGroup // the multiplexed streams' readers and writer
}

func newQUICCarrier(qc *quic.Conn, control *quic.Stream, own io.Closer) *quicCarrier {
	return &quicCarrier{qc: qc, control: control, r: wire.NewReader(control), own: own}
}

func quicConfig(cfg Config) *quic.Config {
	return &quic.Config{
		HandshakeIdleTimeout: cfg.QUICWait,
		// The heartbeat judges a silent peer, and says so; QUIC's own idle timer
		// is the backstop, and agrees with it: a link is dead DeadAfter after the
		// peer's last packet however it is noticed, never later.
		MaxIdleTimeout: cfg.DeadAfter,
		// QUIC pings only when nothing else went out for this long, so a peer
		// whose beats are held up behind a slow control stream is still heard
		// by the transport, and the heartbeat, not the idle timer, judges it.
		KeepAlivePeriod:       cfg.Heartbeat,
		MaxIncomingStreams:    MaxInFlight + 1, // the control stream counts too
		MaxIncomingUniStreams: -1,
	}
}

func (q *quicCarrier) kind() string   { return "quic" }
func (q *quicCarrier) remote() string { return q.qc.RemoteAddr().String() }

func (q *quicCarrier) gone() <-chan struct{} { return q.qc.Context().Done() }

// silent: the idle timer's error reaches whichever of the link's goroutines
// touches the connection first (a heartbeat's write, a stream's accept), so it
// is looked for in err and in the connection's own end.
func (q *quicCarrier) silent(err error) bool {
	var ie *quic.IdleTimeoutError
	return errors.As(err, &ie) || errors.Is(err, errSilent) || errors.As(context.Cause(q.qc.Context()), &ie)
}

// shut ends the connection without waiting; the stream readers call it.
func (q *quicCarrier) shut(code closeCode, reason string) {
	q.closeOnce.Do(func() {
		q.qc.CloseWithError(quic.ApplicationErrorCode(code), reason)
		if q.own != nil {
			q.own.Close()
		}
	})
}

// close ends the connection and waits for the stream readers.
func (q *quicCarrier) close(code closeCode, reason string) {
	q.shut(code, reason)
	q.wg.Wait()
}

func (q *quicCarrier) send(frame []byte) error {
	q.sendMu.Lock()
	defer q.sendMu.Unlock()
	q.control.SetWriteDeadline(time.Now().Add(writeWait))
	_, err := q.control.Write(frame)
	return err
}

// recv's error is errSilent when QUIC's idle timer ended the connection: the
// peer said nothing for DeadAfter, as the heartbeat's judge would have found.
func (q *quicCarrier) recv() (wire.Envelope, error) {
	env, err := q.r.Read()
	var ie *quic.IdleTimeoutError
	if errors.As(err, &ie) {
		err = errSilent
	}
	return env, err
}

// Stream codes a request's stream is cancelled with (one stream per request).
const (
	streamDone      quic.StreamErrorCode = 0 // the answer came; the rest is not read
	streamAbandoned quic.StreamErrorCode = 1 // the caller gave up
	streamBad       quic.StreamErrorCode = 2 // the request could not be read
)

// start's errors wrap ErrClosed when the connection, not just the stream,
// ended.
func (q *quicCarrier) start(id uint64, frame []byte, done func(wire.Envelope, error), item func(wire.Envelope)) (cancel func()) {
	if q.out != nil {
		return q.muxStart(id, frame, done, item)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		env, err := q.exchange(ctx, frame)
		switch {
		case err == nil:
		case ctx.Err() != nil:
			err = ctx.Err() // given up: the reset stream's error says no more
		case connGone(err):
			err = fmt.Errorf("%w: %w", ErrClosed, err)
		}
		done(env, err)
	}()
	return cancel
}

// connGone reports whether err ended the whole QUIC connection.
func connGone(err error) bool {
	var (
		ae *quic.ApplicationError
		te *quic.TransportError
		ie *quic.IdleTimeoutError
		se *quic.StatelessResetError
	)
	return errors.As(err, &ae) || errors.As(err, &te) || errors.As(err, &ie) || errors.As(err, &se) || errors.Is(err, net.ErrClosed)
}

func (q *quicCarrier) exchange(ctx context.Context, frame []byte) (wire.Envelope, error) {
	s, err := q.qc.OpenStreamSync(ctx)
	if err != nil {
		return wire.Envelope{}, err
	}
	// Cancelling both sides tells the peer's handler (its stream context ends)
	// and frees the stream at once.
	stop := context.AfterFunc(ctx, func() {
		s.CancelRead(streamAbandoned)
		s.CancelWrite(streamAbandoned)
	})
	defer stop()
	if _, err := s.Write(frame); err != nil {
		s.CancelRead(streamAbandoned)
		return wire.Envelope{}, err
	}
	s.Close()
	env, err := readOne(s)
	s.CancelRead(streamDone)
	return env, err
}

func (q *quicCarrier) accept(ctx context.Context) (*exchange, error) {
	if q.out != nil {
		return q.muxAccept(ctx)
	}
	s, err := q.qc.AcceptStream(ctx)
	if err != nil {
		return nil, err
	}
	return &exchange{
		ctx: s.Context(),
		read: func() (wire.Envelope, error) {
			s.SetReadDeadline(time.Now().Add(requestWait))
			return readOne(s)
		},
		reply: func(frame []byte) error {
			s.SetWriteDeadline(time.Now().Add(writeWait))
			_, err := s.Write(frame)
			s.Close()
			s.CancelRead(streamDone)
			return err
		},
		abort: func() {
			s.CancelRead(streamBad)
			s.CancelWrite(streamBad)
		},
	}, nil
}

// dialQUIC links to the hub over QUIC from a socket of the link's own. A
// handshake that does not complete within cfg.QUICWait is errNoQUIC, so the
// caller may fall back; a key refused either way is ErrRefused.
func dialQUIC(ctx context.Context, cfg Config, t Target) (*Conn, error) {
	raddr, err := net.ResolveUDPAddr("udp", t.Addr)
	if err != nil {
		return nil, fmt.Errorf("the hub's address %q: %w", t.Addr, err)
	}
	udp, err := net.ListenUDP("udp", nil)
	if err != nil {
		return nil, fmt.Errorf("open a UDP socket for the link: %w", err)
	}
	tr := &quic.Transport{Conn: udp}
	own := closers{tr, udp}
	hctx, cancel := context.WithTimeout(ctx, cfg.QUICWait)
	qc, err := tr.Dial(hctx, raddr, t.tls(), quicConfig(cfg))
	cancel()
	if err != nil {
		own.Close()
		var pe identity.PinError
		switch {
		case errors.As(err, &pe):
			return nil, refuse("this box refused the hub at %s: %w", t.Addr, pe)
		case keyRefused(err):
			return nil, refusedKey(t, t.Addr, err)
		case ctx.Err() != nil:
			return nil, fmt.Errorf("%w: QUIC to the hub at %s", ctx.Err(), t.Addr)
		}
		return nil, fmt.Errorf("%w: no QUIC handshake with the hub at %s within %s: %v", errNoQUIC, t.Addr, cfg.QUICWait, err)
	}
	control, err := qc.OpenStreamSync(ctx)
	if err != nil {
		qc.CloseWithError(quic.ApplicationErrorCode(closeNormal), "")
		own.Close()
		if keyRefused(err) {
			// TLS 1.3: the guest's handshake is done before the hub checks
			// its certificate, so the hub's refusal of the key may come only
			// now, and is as final as one during the handshake.
			return nil, refusedKey(t, t.Addr, err)
		}
		return nil, fmt.Errorf("open the control stream to the hub at %s: %w", t.Addr, err)
	}
	car := newQUICCarrier(qc, control, own)
	return handshake(ctx, cfg, t, car)
}

// closers closes each in turn: a transport before the socket under it.
type closers []io.Closer

func (cs closers) Close() error {
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
