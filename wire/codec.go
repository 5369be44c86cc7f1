package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
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

// Reset drops what r holds and reads from rd, through the same buffer.
func (r *Reader) Reset(rd io.Reader) { r.br.Reset(rd) }

// Buffered is how many bytes were read from the peer and not yet returned
// as frames: more than 0 after a frame, the peer sent more with it.
func (r *Reader) Buffered() int { return r.br.Buffered() }

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
	line = bytes.TrimRight(line, "\r")
	// Unmarshal takes one JSON value and nothing but blanks after it, as a
	// frame is; a frame it refuses is read again by a Decoder, whose words say
	// what was wrong.
	e, plain := decodePlain(line)
	if !plain && json.Unmarshal(line, &e) != nil {
		return Envelope{}, badFrame(line)
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

// decodePlain reads line when it is an envelope as EncodeFrame writes one, the
// way nearly every frame comes: no blanks, its keys in lower case and in their
// order, whole numbers, a kind and an op of plain characters, and the payload,
// valid JSON, last. It reads what Unmarshal would, without Unmarshal's
// reflection; plain is false for any other line, which Unmarshal reads.
func decodePlain(line []byte) (e Envelope, plain bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"v":`))
	var v uint64
	if v, rest, ok = plainUint(rest, ok); !ok || v > math.MaxInt {
		return Envelope{}, false
	}
	e.V = int(v)
	rest, ok = bytes.CutPrefix(rest, []byte(`,"id":`))
	if e.ID, rest, ok = plainUint(rest, ok); !ok {
		return Envelope{}, false
	}
	rest, ok = bytes.CutPrefix(rest, []byte(`,"kind":`))
	if e.Kind, rest, ok = plainString(rest, ok); !ok {
		return Envelope{}, false
	}
	rest, ok = bytes.CutPrefix(rest, []byte(`,"op":`))
	if e.Op, rest, ok = plainString(rest, ok); !ok {
		return Envelope{}, false
	}
	if len(rest) == 1 && rest[0] == '}' {
		return e, true
	}
	rest, ok = bytes.CutPrefix(rest, []byte(`,"payload":`))
	payload, last := bytes.CutSuffix(rest, []byte("}"))
	// Unmarshal keeps a payload without the blanks around it.
	if !ok || !last || len(payload) == 0 || blank(payload[0]) || blank(payload[len(payload)-1]) || !json.Valid(payload) {
		return Envelope{}, false
	}
	e.Payload = append(json.RawMessage(nil), payload...)
	return e, true
}

// blank says whether c is one of JSON's blanks.
func blank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// plainUint reads the whole number b starts with, when ok: digits, no
// leading zero, within a uint64.
func plainUint(b []byte, ok bool) (uint64, []byte, bool) {
	n, v := 0, uint64(0)
	for ; ok && n < len(b) && '0' <= b[n] && b[n] <= '9'; n++ {
		d := uint64(b[n] - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, nil, false
		}
		v = v*10 + d
	}
	if n == 0 || n > 1 && b[0] == '0' {
		return 0, nil, false
	}
	return v, b[n:], true
}

// plainString reads the JSON string b starts with, when ok and it holds only
// plainByte's characters, so it needs no unescaping.
func plainString(b []byte, ok bool) (string, []byte, bool) {
	if !ok || len(b) == 0 || b[0] != '"' {
		return "", nil, false
	}
	for n := 1; n < len(b); n++ {
		switch {
		case b[n] == '"':
			return string(b[1:n]), b[n+1:], true
		case !plainByte(b[n]):
			return "", nil, false
		}
	}
	return "", nil, false
}

// plain says whether s is made only of plainByte's characters.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plainByte(s[i]) {
			return false
		}
	}
	return true
}

// plainByte says whether c is one of what a kind and an op are made of:
// lower-case letters, digits, '.', '_' and '-', none of which JSON escapes.
func plainByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}

// badFrame says what is wrong with line, a frame that Unmarshal refused.
func badFrame(line []byte) error {
	var e Envelope
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&e); err != nil {
		return fmt.Errorf("%w: %v", ErrFrame, err)
	}
	// Decoder.More is false before a stray ']' or '}', so the rest is checked
	// whole: a frame is one object and nothing but JSON's blanks after it.
	if rest := bytes.TrimLeft(line[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return fmt.Errorf("%w: more than one JSON value on one line (%d bytes follow the frame's object); send one object per line", ErrFrame, len(rest))
	}
	return fmt.Errorf("%w: the frame is not one JSON object", ErrFrame)
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
	mu   sync.Mutex
	w    io.Writer
	held []byte // a frame Hold kept for the next write
}

// NewWriter writes frames to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write sends one envelope whose payload is p (marshalled unless it is already a
// json.RawMessage), after the frame Hold kept, in the same write.
func (w *Writer) Write(id uint64, kind, op string, p any) error {
	b, err := EncodeFrame(id, kind, op, p)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held != nil {
		b, w.held = append(w.held, b...), nil
	}
	_, err = w.w.Write(b)
	return err
}

// Hold keeps one envelope to go out with the next Write, in the same write,
// or at Flush: a peer that sent a request with its hello reads both answers
// at one wake, where two writes may wake it twice. Nothing is sent by Hold.
func (w *Writer) Hold(id uint64, kind, op string, p any) error {
	b, err := EncodeFrame(id, kind, op, p)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.held = append(w.held, b...)
	return nil
}

// Flush sends what Hold kept, if a Write has not.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held == nil {
		return nil
	}
	b := w.held
	w.held = nil
	_, err := w.w.Write(b)
	return err
}

// EncodeFrame is one envelope's bytes, newline included, refused when over MaxFrame.
func EncodeFrame(id uint64, kind, op string, p any) ([]byte, error) {
	var payload []byte // compact JSON, as the envelope's Marshal would write it
	switch p := p.(type) {
	case nil:
	case json.RawMessage:
		// Already encoded (a hub's offer to every box is encoded once and sent
		// on each link): checked and compacted as Marshal would, HTML escapes
		// included, not decoded and encoded again. Compact JSON holds no
		// newline, which would end the frame.
		if len(p) == 0 {
			break
		}
		var c, e bytes.Buffer
		c.Grow(len(p))
		if err := json.Compact(&c, p); err != nil {
			return nil, fmt.Errorf("encode %s payload: %w", op, err)
		}
		e.Grow(c.Len())
		json.HTMLEscape(&e, c.Bytes())
		payload = e.Bytes()
	default:
		b, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("encode %s payload: %w", op, err)
		}
		payload = b
	}
	var b []byte
	if plain(kind) && plain(op) {
		// The envelope as Marshal writes it, put together without its
		// reflection: nothing in the head needs escaping, and the payload is
		// compact, valid JSON already.
		b = make([]byte, 0, 96+len(kind)+len(op)+len(payload))
		b = strconv.AppendInt(append(b, `{"v":`...), Version, 10)
		b = strconv.AppendUint(append(b, `,"id":`...), id, 10)
		b = append(append(append(append(append(b, `,"kind":"`...), kind...), `","op":"`...), op...), '"')
		if payload != nil {
			b = append(append(b, `,"payload":`...), payload...)
		}
		b = append(b, '}')
	} else {
		var err error
		if b, err = json.Marshal(Envelope{V: Version, ID: id, Kind: kind, Op: op}); err != nil {
			return nil, fmt.Errorf("encode %s frame: %w", op, err)
		}
		if payload != nil {
			// As its last field, as Marshal would put it.
			b = append(append(append(b[:len(b)-1], `,"payload":`...), payload...), '}')
		}
	}
	if len(b)+1 > MaxFrame {
		return nil, fmt.Errorf("%s frame is %d bytes, over the %d-byte cap", op, len(b)+1, MaxFrame)
	}
	return append(b, '\n'), nil
}

// WriteError answers request id with a refusal.
func (w *Writer) WriteError(id uint64, op, code, sentence string) error {
	return w.Write(id, KindRes, op, Error{Error: sentence, Code: code})
}
