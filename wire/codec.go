package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// ErrFrame is wrapped by every error that says a frame was bad (as opposed to the
// connection failing), so a server can answer bad_frame before it closes.
var ErrFrame = errors.New("bad frame")

// Reader reads frames from a stream.
type Reader struct {
	br *bufio.Reader
}

// NewReader reads frames from r.
func NewReader(r io.Reader) *Reader {
	return NewReaderSize(r, 64<<10)
}

// NewReaderSize reads frames from r through a buffer of size bytes: a frame
// longer than that is still read whole, in pieces, up to MaxFrame.
func NewReaderSize(r io.Reader, size int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, size)}
}

// ReadLine returns the next frame's bytes without its newline. It never holds
// more than MaxFrame bytes: a longer line is an error, and so is a last line the
// peer did not end with a newline (a truncated frame).
func (r *Reader) ReadLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.br.ReadSlice('\n')
		// Without its newline a frame of MaxFrame bytes is already too long;
		// saying so now, not after more bytes come, answers a peer that waits.
		if n := len(line) + len(chunk); n > MaxFrame || n == MaxFrame && err != nil {
			return nil, fmt.Errorf("%w: a frame is over %d bytes; send a smaller one", ErrFrame, MaxFrame)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, fmt.Errorf("%w: the connection closed in the middle of a frame (%d bytes without a newline)", ErrFrame, len(line))
		default:
			return nil, err
		}
	}
}

// Read returns the next envelope.
func (r *Reader) Read() (Envelope, error) {
	line, err := r.ReadLine()
	if err != nil {
		return Envelope{}, err
	}
	return Decode(line)
}

// Decode parses one frame: one JSON object that is text (checkText), a known
// version and kind. Every path a frame comes by (the socket, a link's streams,
// WebSocket) reads it here, so no op ever sees what it refuses.
func Decode(line []byte) (Envelope, error) {
	var e Envelope
	line = bytes.TrimRight(line, "\r")
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&e); err != nil {
		return Envelope{}, fmt.Errorf("%w: %v", ErrFrame, err)
	}
	// Decoder.More is false before a stray ']' or '}', so the rest is checked
	// whole: a frame is one object and nothing but JSON's blanks after it.
	if rest := bytes.TrimLeft(line[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return Envelope{}, fmt.Errorf("%w: more than one JSON value on one line (%d bytes follow the frame's object); send one object per line", ErrFrame, len(rest))
	}
	if err := checkText(line, "the frame"); err != nil {
		return Envelope{}, err
	}
	if e.V != Version {
		return Envelope{}, fmt.Errorf("%w: envelope version %d; this daemon speaks %d", ErrFrame, e.V, Version)
	}
	switch e.Kind {
	case KindReq, KindRes, KindEvt:
	default:
		return Envelope{}, fmt.Errorf("%w: kind %q is not req, res or evt", ErrFrame, e.Kind)
	}
	if e.Op == "" {
		return Envelope{}, fmt.Errorf("%w: the frame names no op", ErrFrame)
	}
	return e, nil
}

// DecodePayload parses a payload into v. The payload must be a JSON object; fields
// v does not know are ignored (a newer peer may send more), a wrong-typed field is
// an error naming it. A v that is a Validator is then checked: its refusal is a
// *Refusal (bad_request), which leaves a connection open, where a bad payload
// closes it.
func DecodePayload(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return fmt.Errorf("%w: the payload is not a JSON object", ErrFrame)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%w: payload field %q is a JSON %s, want %s", ErrFrame, te.Field, te.Value, te.Type)
		}
		return fmt.Errorf("%w: %v", ErrFrame, err)
	}
	// A payload read from a frame was checked with it; one from elsewhere is
	// checked here, since Unmarshal replaces what is not text.
	if err := checkText(raw, "the payload"); err != nil {
		return err
	}
	if val, ok := v.(Validator); ok {
		return val.Validate()
	}
	return nil
}

// Writer writes frames; it is safe for concurrent use, one frame at a time.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriter writes frames to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write sends one envelope whose payload is p (marshalled unless it is already a
// json.RawMessage).
func (w *Writer) Write(id uint64, kind, op string, p any) error {
	b, err := EncodeFrame(id, kind, op, p)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err = w.w.Write(b)
	return err
}

// EncodeFrame is one envelope's bytes, newline included, refused when over MaxFrame.
func EncodeFrame(id uint64, kind, op string, p any) ([]byte, error) {
	var raw json.RawMessage
	switch p := p.(type) {
	case nil:
	case json.RawMessage:
		if plain(kind) && plain(op) && json.Valid(p) {
			return splice(id, kind, op, p)
		}
		raw = p
	default:
		b, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("encode %s payload: %w", op, err)
		}
		raw = b
	}
	b, err := json.Marshal(Envelope{V: Version, ID: id, Kind: kind, Op: op, Payload: raw})
	if err != nil {
		return nil, fmt.Errorf("encode %s frame: %w", op, err)
	}
	if len(b)+1 > MaxFrame {
		return nil, fmt.Errorf("%s frame is %d bytes, over the %d-byte cap", op, len(b)+1, MaxFrame)
	}
	return append(b, '\n'), nil
}

// splice is EncodeFrame's frame for a payload already encoded and checked: it
// goes in as it is rather than through encoding/json once more, as a hub's
// offer to every box is encoded once and sent on each link.
func splice(id uint64, kind, op string, raw json.RawMessage) ([]byte, error) {
	b := make([]byte, 0, len(raw)+len(kind)+len(op)+64)
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, Version, 10)
	b = append(b, `,"id":`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, `,"kind":"`...)
	b = append(b, kind...)
	b = append(b, `","op":"`...)
	b = append(b, op...)
	b = append(b, `","payload":`...)
	b = append(b, raw...)
	b = append(b, "}\n"...)
	if len(b) > MaxFrame {
		return nil, fmt.Errorf("%s frame is %d bytes, over the %d-byte cap", op, len(b), MaxFrame)
	}
	return b, nil
}

// plain says whether s goes into a JSON string as it is: a kind or an op.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// WriteError answers request id with a refusal.
func (w *Writer) WriteError(id uint64, op, code, sentence string) error {
	return w.Write(id, KindRes, op, Error{Error: sentence, Code: code})
}
