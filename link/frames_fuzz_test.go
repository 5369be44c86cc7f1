package link

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// The link's frames, fuzzed as the local envelope is (wire's FuzzDecode): what
// a peer sends on the control stream (hello, heartbeat, directory) and on a
// request stream (comm.file, comm.receipts) is either refused, as a bad frame
// or a bad_request, or read whole: written again and read back, it is the same.

// readBack reads line as a link reads a frame of op, then its payload as a T.
// ok is false when the frame is refused or is not op's.
func readBack[T any](t *testing.T, line []byte, op string) (v T, ok bool) {
	t.Helper()
	env, err := readOne(bytes.NewReader(append(bytes.Clone(line), '\n')))
	if err != nil {
		if !errors.Is(err, wire.ErrFrame) {
			t.Fatalf("a frame was refused with %v, which is not a bad frame", err)
		}
		return v, false
	}
	if env.Op != op || len(env.Payload) == 0 {
		return v, false
	}
	if err := wire.DecodePayload(env.Payload, &v); err != nil {
		if r, isRefusal := wire.RefusalOf(err); !errors.Is(err, wire.ErrFrame) && !(isRefusal && r.Code == wire.CodeBadRequest) {
			t.Fatalf("a %s payload was refused with %v, neither a bad frame nor bad_request", op, err)
		}
		return v, false
	}
	noneReplaced(t, line, v)
	frame, err := wire.EncodeFrame(env.ID, env.Kind, op, v)
	if err != nil {
		return v, true // written again it is over the cap: json escapes <, > and & in six bytes
	}
	again, err := readOne(bytes.NewReader(frame))
	if err != nil {
		t.Fatalf("%s written again is refused: %v\n%s", op, err, frame)
	}
	var back T
	if err := wire.DecodePayload(again.Payload, &back); err != nil {
		t.Fatalf("%s written again is refused: %v\n%s", op, err, frame)
	}
	if a, b := mustJSON(t, v), mustJSON(t, back); a != b {
		t.Fatalf("%s read back as %s, was %s", op, b, a)
	}
	return v, true
}

// noneReplaced fails when v holds U+FFFD that line did not send: text a JSON
// reader replaced rather than refused.
func noneReplaced(t *testing.T, line []byte, v any) {
	t.Helper()
	s := mustJSON(t, v)
	if !strings.Contains(s, "\uFFFD") {
		return
	}
	if !bytes.Contains(line, []byte("\uFFFD")) && !bytes.Contains(bytes.ToLower(line), []byte(`\ufffd`)) {
		t.Fatalf("%s holds U+FFFD the frame did not send: text was replaced, not refused\nframe: %q", s, line)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func FuzzLinkHello(f *testing.F) {
	f.Add([]byte(`{"v":1,"id":1,"kind":"req","op":"hello","payload":{"role":"link","host":"guest","protocol":1}}`))
	f.Add([]byte(`{"v":1,"id":1,"kind":"req","op":"hello","payload":{"role":"link","host":"guest\u0000","protocol":1}}`))
	f.Add([]byte(`{"v":1,"id":1,"kind":"req","op":"hello","payload":{"role":"link","host":"gu\ud800est","protocol":1}}`))
	f.Add([]byte(`{"v":1,"id":1,"kind":"req","op":"hello","payload":{"role":"cli","host":"guest","os_user":"x","protocol":2}}`))
	f.Add([]byte(`{"v":1,"id":1,"kind":"res","op":"hello","payload":{"host":"hub","protocol":1}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		env, err := wire.Decode(line)
		if err != nil {
			return
		}
		_, why := checkHello(env, "guest")
		h, ok := readBack[wire.Hello](t, line, wire.OpHello)
		if why == "" && (!ok || env.Kind != wire.KindReq || h.Role != wire.RoleLink || h.Host != "guest" || h.Protocol != wire.Protocol) {
			t.Fatalf("the hub admitted %q as box guest", line)
		}
	})
}

func FuzzLinkHeartbeat(f *testing.F) {
	f.Add([]byte(`{"v":1,"id":0,"kind":"evt","op":"link.heartbeat","payload":{"sent":1893456000000000000,"held":5000000}}`), true, int64(time.Second))
	f.Add([]byte(`{"v":1,"id":0,"kind":"evt","op":"link.heartbeat","payload":{"sent":9223372036854775807,"held":0}}`), true, int64(time.Millisecond))
	f.Add([]byte(`{"v":1,"id":0,"kind":"evt","op":"link.heartbeat","payload":{"sent":-9223372036854775807,"held":1}}`), true, int64(0))
	f.Add([]byte(`{"v":1,"id":0,"kind":"evt","op":"link.heartbeat","payload":{"sent":1,"echo":5,"held":9223372036854775807}}`), false, int64(time.Hour))
	f.Add([]byte(`{"v":1,"id":0,"kind":"evt","op":"link.heartbeat"}`), false, int64(0))
	f.Fuzz(func(t *testing.T, line []byte, echoOurs bool, elapsed int64) {
		b, ok := readBack[wire.LinkBeat](t, line, wire.OpLinkHeartbeat)
		if !ok {
			return
		}
		// This end beat at t1; the peer's beat comes back elapsed later (at most
		// a day: the link is dead after DeadAfter), echoing it when echoOurs.
		var tm timing
		t1 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		tm.beat(t1)
		if echoOurs {
			b.Echo = t1.UnixNano()
		}
		now := t1.Add(time.Duration(elapsed % int64(24*time.Hour)).Abs())
		_, sampled, h := tm.heardBeat(b, now)
		if !sampled {
			return
		}
		if h.RTT < 0 || h.MinRTT < 0 || h.Samples != 1 {
			t.Fatalf("beat %+v at %s: health %+v", b, now.Sub(t1), h)
		}
		// NTP's offset is the mean of the two one-way differences; however far
		// off the peer's clock says it is, the mean lies between them.
		t2 := new(big.Int).Sub(big.NewInt(b.Sent), big.NewInt(b.Held))
		d1 := new(big.Int).Sub(t2, big.NewInt(t1.UnixNano()))
		d2 := new(big.Int).Sub(big.NewInt(b.Sent), big.NewInt(now.UnixNano()))
		lo, hi := d1, d2
		if lo.Cmp(hi) > 0 {
			lo, hi = hi, lo
		}
		off := big.NewInt(int64(h.Offset))
		if off.Cmp(new(big.Int).Sub(lo, big.NewInt(1))) < 0 || off.Cmp(new(big.Int).Add(hi, big.NewInt(1))) > 0 {
			t.Fatalf("beat %+v at %s: offset %d is not between %s and %s", b, now.Sub(t1), h.Offset, lo, hi)
		}
	})
}

func FuzzLinkDirectory(f *testing.F) {
	f.Add([]byte(`{"v":1,"id":0,"kind":"evt","op":"link.directory","payload":{"full":true,"added":["alice","bob"]}}`))
	f.Add([]byte(`{"v":1,"id":0,"kind":"evt","op":"link.directory","payload":{"added":["c"],"removed":["a"]}}`))
	f.Add([]byte(`{"v":1,"id":0,"kind":"evt","op":"link.directory","payload":{"added":[],"removed":null}}`))
	f.Add([]byte(`{"v":1,"id":0,"kind":"evt","op":"link.directory","payload":{"added":["\udc00"]}}`))
	f.Add([]byte(`{"v":1,"id":0,"kind":"evt","op":"link.directory","payload":{"added":[1]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		readBack[wire.LinkDirectory](t, line, wire.OpLinkDirectory)
	})
}

func FuzzLinkCommFile(f *testing.F) {
	f.Add([]byte(`{"v":1,"id":2,"kind":"req","op":"comm.file","payload":{"from":"alice","to":"bob","text":"hi","forwarded":true,"id":"01HZX0000000000000000000AA"}}`))
	f.Add([]byte(`{"v":1,"id":2,"kind":"req","op":"comm.file","payload":{"from":"alice","to":"bob","text":"\ud83d\ude00 \u00e9 \\ud800","repo":"web","broadcast":true}}`))
	f.Add([]byte(`{"v":1,"id":2,"kind":"req","op":"comm.file","payload":{"from":"alice","to":"bob","text":"\ud800"}}`))
	f.Add([]byte(`{"v":1,"id":2,"kind":"req","op":"comm.file","payload":{"from":"alice","to":"bob","id":"A B"}}`))
	f.Add([]byte(`{"v":1,"id":2,"kind":"req","op":"comm.file","payload":{"from":5}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, ok := readBack[wire.CommFile](t, line, wire.OpCommFile)
		if ok && (len(r.From) > wire.MaxName || len(r.To) > wire.MaxName || len(r.Repo) > wire.MaxName || len(r.ID) > wire.MaxMsgID || strings.ContainsAny(r.ID, " \n\x00")) {
			t.Fatalf("a comm.file past its bounds was read: %+v", r)
		}
	})
}

func FuzzLinkCommReceipts(f *testing.F) {
	f.Add([]byte(`{"v":1,"id":3,"kind":"req","op":"comm.receipts","payload":{"from":"alice","max":20,"forwarded":true}}`))
	f.Add([]byte(`{"v":1,"id":3,"kind":"req","op":"comm.receipts","payload":{"from":"alice","to":"bob","max":-1}}`))
	f.Add([]byte(`{"v":1,"id":3,"kind":"req","op":"comm.receipts","payload":{"from":"alice","max":1e3}}`))
	f.Add([]byte(`{"v":1,"id":3,"kind":"req","op":"comm.receipts","payload":{"from":"\udfff"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, ok := readBack[wire.CommReceipts](t, line, wire.OpCommReceipts)
		if n := r.PerReceiver(); ok && (n < 1 || n > wire.ReceiptsMax) {
			t.Fatalf("%+v asks %d lines per receiver", r, n)
		}
	})
}
