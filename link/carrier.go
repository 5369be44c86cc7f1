package link

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/sotcomm/sotd/wire"
)

// carrier is what one transport (QUIC, WebSocket) gives a Conn: calls that are
// one request and one answer, the peer's requests, and the control stream.
type carrier interface {
	// start sends one request frame without waiting: done gets its answer, or
	// why none came (wrapping ErrClosed when the connection ended), once,
	// without blocking, as the reader that took it must go on. cancel gives up
	// on it: the peer is told where the transport can, and done gets
	// context.Canceled unless the answer came first. item, when not nil,
	// gets each comm.file.items event the peer sends for the request before
	// its answer (a link whose hellos agreed to Items), on the reader, so it
	// must not block.
	start(id uint64, frame []byte, done func(wire.Envelope, error), item func(wire.Envelope)) (cancel func())
	// accept waits for the peer's next request.
	accept(ctx context.Context) (*exchange, error)
	// multiplex carries every request of each end on one stream of its own,
	// matched by id, as a hello that asked for it (wire.Hello.Mux) agreed;
	// called once, after the hello, before the link starts.
	multiplex() error
	// send writes one frame on the control stream.
	send(frame []byte) error
	// recv reads the next frame of the control stream.
	recv() (wire.Envelope, error)
	// gone is closed once the connection under the link has ended.
	gone() <-chan struct{}
	// silent reports whether err, or the end of the connection under the
	// link, is its transport's finding that the peer said nothing for
	// DeadAfter (QUIC's idle timer), as the heartbeat's judge would have found.
	silent(err error) bool
	// close ends the connection, telling the peer why where the transport can.
	close(code closeCode, reason string)
	kind() string
	remote() string
}

// exchange is one request of the peer's, being answered.
type exchange struct {
	ctx   context.Context // ends when the caller gives up or the link ends
	read  func() (wire.Envelope, error)
	reply func(frame []byte) error // sends the answer and finishes the exchange
	// partial sends a frame ahead of the answer, where it will come (a
	// multiplexed stream, a WebSocket); nil where none can go (a stream per
	// request).
	partial func(frame []byte) error
	abort   func() // drops an exchange that cannot be answered
}

// readOne reads the one frame a stream carries before its end: no more than
// MaxFrame bytes, ended by its newline.
func readOne(r io.Reader) (wire.Envelope, error) {
	b, err := io.ReadAll(io.LimitReader(r, wire.MaxFrame+1))
	switch {
	case err != nil:
		return wire.Envelope{}, err
	case len(b) > wire.MaxFrame:
		return wire.Envelope{}, fmt.Errorf("%w: a frame is over %d bytes; send a smaller one", wire.ErrFrame, wire.MaxFrame)
	case len(b) == 0:
		return wire.Envelope{}, io.ErrUnexpectedEOF
	case b[len(b)-1] != '\n':
		return wire.Envelope{}, fmt.Errorf("%w: the stream ended in the middle of a frame (%d bytes without a newline)", wire.ErrFrame, len(b))
	}
	return wire.Decode(bytes.TrimSuffix(b, []byte("\n")))
}
