package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestReadFrames(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		op       string
		bad      string // substring of the error, "" for success
	}{
		{"hello", `{"v":1,"id":1,"kind":"req","op":"hello","payload":{"role":"cli"}}` + "\n", "hello", ""},
		{"crlf", `{"v":1,"id":1,"kind":"req","op":"x"}` + "\r\n", "x", ""},
		{"truncated", `{"v":1,"id":1,"kind":"req","op":"x"}`, "", "in the middle of a frame"},
		{"not json", "hello\n", "", "invalid character"},
		{"two values", `{"v":1,"id":1,"kind":"req","op":"x"} {}` + "\n", "", "more than one JSON value"},
		{"a stray brace after the object", `{"v":1,"id":1,"kind":"req","op":"x"}}` + "\n", "", "more than one JSON value"},
		{"a stray bracket and more after the object", `{"v":1,"id":1,"kind":"req","op":"x"} ]"\` + "\n", "", "3 bytes follow"},
		{"blanks after the object", "{\"v\":1,\"id\":1,\"kind\":\"req\",\"op\":\"x\"} \t \r\n", "x", ""},
		{"wrong version", `{"v":2,"id":1,"kind":"req","op":"x"}` + "\n", "", "envelope version 2"},
		{"wrong kind", `{"v":1,"id":1,"kind":"shout","op":"x"}` + "\n", "", `kind "shout"`},
		{"no op", `{"v":1,"id":1,"kind":"req"}` + "\n", "", "names no op"},
		{"wrong-typed id", `{"v":1,"id":"one","kind":"req","op":"x"}` + "\n", "", "cannot unmarshal"},
		{"invalid utf-8", "{\"v\":1,\"id\":1,\"kind\":\"req\",\"op\":\"x\xff\"}\n", "", "not valid UTF-8"},
		{"over the cap", strings.Repeat("x", MaxFrame+10) + "\n", "", "over 1048576 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := NewReader(strings.NewReader(tc.in)).Read()
			if tc.bad == "" {
				if err != nil || e.Op != tc.op {
					t.Fatalf("Read = %+v, %v; want op %q", e, err, tc.op)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Fatalf("Read error = %v, want one containing %q", err, tc.bad)
			}
			if !errors.Is(err, ErrFrame) {
				t.Fatalf("error %v does not wrap ErrFrame", err)
			}
		})
	}
}

func TestDecodePayload(t *testing.T) {
	var c CommFile
	if err := DecodePayload([]byte(`{"from":"a","to":"b","text":"hi","extra":1}`), &c); err != nil || c.To != "b" {
		t.Fatalf("DecodePayload = %+v, %v", c, err)
	}
	err := DecodePayload([]byte(`{"to":5}`), &c)
	if err == nil || !strings.Contains(err.Error(), `"to"`) {
		t.Fatalf("wrong-typed field: %v, want an error naming \"to\"", err)
	}
	for _, raw := range []string{"", "null", "[1]", `"s"`} {
		if err := DecodePayload([]byte(raw), &c); err == nil {
			t.Fatalf("DecodePayload(%q) accepted a non-object", raw)
		}
	}
}

func TestWriterRoundTripAndCap(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.Write(7, KindReq, OpCommFile, CommFile{From: "a", To: "b", Text: "x\ny"}); err != nil {
		t.Fatal(err)
	}
	e, err := NewReader(&buf).Read()
	if err != nil || e.ID != 7 || e.Op != OpCommFile {
		t.Fatalf("round trip = %+v, %v", e, err)
	}
	var c CommFile
	if err := DecodePayload(e.Payload, &c); err != nil || c.Text != "x\ny" {
		t.Fatalf("payload = %+v, %v", c, err)
	}
	if err := w.Write(8, KindReq, OpCommFile, CommFile{Text: strings.Repeat("x", MaxFrame)}); err == nil {
		t.Fatal("Write sent a frame over the cap")
	}
}

// EncodeFrame puts a payload it marshalled in as it is, not through the
// envelope's Marshal again: the bytes must be the ones that Marshal makes.
func TestEncodeFrameIsTheEnvelopesMarshal(t *testing.T) {
	for _, p := range []any{
		CommFile{From: "a", To: "b", Text: "<x> & \"y\"\n\u2028 é \x01", ID: "ID-1"},
		CommFileBatch{Requests: []json.RawMessage{json.RawMessage(`{"to":"b"}`), json.RawMessage(` { "to" : "<c>" } `)}},
		map[string]any(nil),
		[]int{},
		json.RawMessage(" {\n \"a\" : \"<b>\" }\n"),
		nil,
	} {
		for _, op := range []string{OpCommFile, "Op<&>", `a"b`, "é", ""} {
			encodeFrameIsMarshal(t, op, p)
		}
	}
}

func encodeFrameIsMarshal(t *testing.T, op string, p any) {
	t.Helper()
	got, err := EncodeFrame(1<<63, KindRes, op, p)
	if err != nil {
		t.Fatal(err)
	}
	env := Envelope{V: Version, ID: 1 << 63, Kind: KindRes, Op: op}
	switch p := p.(type) {
	case nil:
	case json.RawMessage:
		env.Payload = p
	default:
		if env.Payload, err = json.Marshal(p); err != nil {
			t.Fatal(err)
		}
	}
	want, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	if want = append(want, '\n'); !bytes.Equal(got, want) {
		t.Errorf("EncodeFrame(%q, %#v) =\n%s want\n%s", op, p, got, want)
	}
}

func TestReaderKeepsStreamAfterLongChunks(t *testing.T) {
	big := `{"v":1,"id":1,"kind":"req","op":"x","payload":{"t":"` + strings.Repeat("y", 200<<10) + `"}}` + "\n"
	r := NewReader(strings.NewReader(big + `{"v":1,"id":2,"kind":"req","op":"z"}` + "\n"))
	for _, want := range []string{"x", "z"} {
		e, err := r.Read()
		if err != nil || e.Op != want {
			t.Fatalf("Read = %+v, %v; want op %s", e, err, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"v":1,"id":1,"kind":"req","op":"hello","payload":{"role":"cli"}}`))
	f.Add([]byte(`{"v":1,"id":18446744073709551615,"kind":"res","op":"comm.file","payload":{"error":"x"}}`))
	f.Add([]byte("\xff\xfe"))
	f.Add([]byte(`{"v":1,"kind":"evt","op":"a","payload":[]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := Decode(line)
		if err != nil {
			if !errors.Is(err, ErrFrame) {
				t.Fatalf("Decode error %v does not wrap ErrFrame", err)
			}
			return
		}
		// What decodes must survive a write and a read unchanged.
		var buf bytes.Buffer
		if err := NewWriter(&buf).Write(e.ID, e.Kind, e.Op, e.Payload); err != nil {
			return
		}
		back, err := NewReader(&buf).Read()
		if err != nil || back.ID != e.ID || back.Op != e.Op || back.Kind != e.Kind {
			t.Fatalf("round trip of %q: %+v, %v", line, back, err)
		}
	})
}

// The plain reading of a frame is Unmarshal's, whenever it reads one at all.
func FuzzDecodePlainIsUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"v":1,"id":7,"kind":"req","op":"comm.file","payload":{"from":"a","to":"b"}}`,
		`{"v":1,"id":0,"kind":"evt","op":"link.view"}`,
		`{"v":1,"id":18446744073709551615,"kind":"res","op":"x","payload":null}`,
		`{"v":1,"id":18446744073709551616,"kind":"res","op":"x"}`,
		`{"v":1,"id":01,"kind":"res","op":"x"}`,
		`{"v":1,"id":1,"kind":"res","op":"x","payload":{"a":1},"v":2}`,
		`{"v":1,"id":1,"kind":"res","op":"x","payload":{"a":1}}}`,
		`{"v":1,"id":1,"kind":"r\u0065s","op":"x"}`,
		`{"v":9223372036854775808,"id":1,"kind":"res","op":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		e, plain := decodePlain(line)
		if !plain {
			return
		}
		var want Envelope
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("decodePlain read %q as %+v, which Unmarshal refuses: %v", line, e, err)
		}
		if e.V != want.V || e.ID != want.ID || e.Kind != want.Kind || e.Op != want.Op || !bytes.Equal(e.Payload, want.Payload) || (e.Payload == nil) != (want.Payload == nil) {
			t.Fatalf("decodePlain read %q as %+v; Unmarshal reads %+v", line, e, want)
		}
	})
}

// Every frame EncodeFrame writes is read the plain way.
func TestFramesAreReadPlainly(t *testing.T) {
	for _, p := range []any{nil, CommFile{From: "a", To: "b", Text: "x\n\"}"}, json.RawMessage(`null`), CommFiledBatch{}} {
		frame, err := EncodeFrame(1<<40, KindReq, OpCommFileBatch, p)
		if err != nil {
			t.Fatal(err)
		}
		if e, plain := decodePlain(bytes.TrimSuffix(frame, []byte("\n"))); !plain || e.ID != 1<<40 || e.Op != OpCommFileBatch {
			t.Errorf("the frame %s was read as %+v, plain %v; want it read plainly", frame, e, plain)
		}
	}
}

// A payload already encoded goes into its frame as it is, the same bytes
// encoding/json would make of it; one that is not JSON is still refused.
func TestAnEncodedPayloadIsSplicedIntoItsFrame(t *testing.T) {
	req := CommFile{From: "alice", To: "bob", Text: "a line <with> \"quotes\" & é", ID: "01J0000000000000000000000"}
	raw, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	want, err := EncodeFrame(42, KindReq, OpCommFile, req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := EncodeFrame(42, KindReq, OpCommFile, json.RawMessage(raw))
	if err != nil || string(got) != string(want) {
		t.Fatalf("spliced frame = %q, %v\nwant %q", got, err, want)
	}
	env, err := Decode(bytes.TrimSuffix(got, []byte("\n")))
	if err != nil || env.ID != 42 || env.Op != OpCommFile {
		t.Fatalf("the spliced frame decodes to %+v, %v", env, err)
	}
	if _, err := EncodeFrame(1, KindReq, OpCommFile, json.RawMessage(`{"to":`)); err == nil {
		t.Fatal("a payload that is not JSON was framed")
	}
}

// A frame Hold keeps goes out before the next Write's, in the same write, or
// alone at Flush; Hold itself sends nothing, and a Flush with nothing held
// writes nothing.
func TestWriterHoldGoesWithTheNextWrite(t *testing.T) {
	var writes []string
	w := NewWriter(writerFunc(func(p []byte) (int, error) { writes = append(writes, string(p)); return len(p), nil }))
	hello := func(id uint64) string {
		b, _ := EncodeFrame(id, KindRes, OpHello, HelloOK{Host: "box", Protocol: Protocol})
		return string(b)
	}
	if err := w.Hold(1, KindRes, OpHello, HelloOK{Host: "box", Protocol: Protocol}); err != nil || len(writes) != 0 {
		t.Fatalf("Hold: %v, wrote %q; want nothing written", err, writes)
	}
	if err := w.WriteError(2, OpRegistryRows, CodeUnreadable, "no row can be read"); err != nil {
		t.Fatal(err)
	}
	refusal, _ := EncodeFrame(2, KindRes, OpRegistryRows, Error{Error: "no row can be read", Code: CodeUnreadable})
	if len(writes) != 1 || writes[0] != hello(1)+string(refusal) {
		t.Fatalf("the write after Hold: %q; want the held frame and the answer in one write", writes)
	}
	if err := w.Flush(); err != nil || len(writes) != 1 {
		t.Fatalf("Flush with nothing held: %v, writes %q", err, writes)
	}
	w.Hold(3, KindRes, OpHello, HelloOK{Host: "box", Protocol: Protocol})
	if err := w.Flush(); err != nil || len(writes) != 2 || writes[1] != hello(3) {
		t.Fatalf("Flush: %v, writes %q; want the held frame alone", err, writes)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
