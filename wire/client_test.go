package wire

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sotcomm/sotd/internal/testutil"
)

// peer is a scripted daemon on a real Unix socket: it answers hello by accept
// (refuse names a refusal instead), then hands every request to serve.
type peer struct {
	refuse string
	serve  func(w *Writer, env Envelope)
}

// sockPath is a socket path short enough for any OS's limit (t.TempDir's are not).
func sockPath(t *testing.T) string {
	t.Helper()
	dir := testutil.ShortDir(t, "wc")
	return filepath.Join(dir, "s.sock")
}

func (p peer) start(t *testing.T) string {
	t.Helper()
	path := sockPath(t)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				p.conn(c)
			}()
		}
	}()
	return path
}

func (p peer) conn(c net.Conn) {
	r, w := NewReader(c), NewWriter(c)
	hello, err := r.Read()
	if err != nil {
		return
	}
	if p.refuse != "" {
		w.WriteError(hello.ID, OpHello, CodeHelloRefused, p.refuse)
		return
	}
	w.Write(hello.ID, KindRes, OpHello, HelloOK{Host: "box", Protocol: Protocol})
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		env, err := r.Read()
		if err != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.serve(w, env)
		}()
	}
}

var testHello = Hello{Role: RoleCLI, Host: "box", Protocol: Protocol}

func dialT(t *testing.T, path string) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, path, testHello)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// echo answers each comm.file with its own to, after a delay the request names
// (in its text, as a duration), so answers come back out of order.
func echo(w *Writer, env Envelope) {
	var req CommFile
	if err := DecodePayload(env.Payload, &req); err != nil {
		w.WriteError(env.ID, env.Op, CodeBadFrame, err.Error())
		return
	}
	if d, err := time.ParseDuration(req.Text); err == nil {
		time.Sleep(d)
	}
	if req.To == "refuse" {
		w.WriteError(env.ID, env.Op, CodeNotHere, "no box knows that handle: refuse")
		return
	}
	w.Write(env.ID, KindRes, env.Op, CommFiled{OK: true, To: req.To})
}

func TestClientMatchesConcurrentAnswersByID(t *testing.T) {
	c := dialT(t, peer{serve: echo}.start(t))
	if got := c.Hello().Host; got != "box" {
		t.Fatalf("hello answer host = %q, want box", got)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			to := "h" + string(rune('a'+i%26)) + string(rune('a'+i/26))
			delay := time.Duration(40-i) * time.Millisecond // later calls answered first
			var got CommFiled
			err := c.Call(context.Background(), OpCommFile, CommFile{From: "me", To: to, Text: delay.String()}, &got)
			switch {
			case err != nil:
				errs <- err
			case got.To != to || !got.OK:
				errs <- errors.New("call for " + to + " got the answer for " + got.To)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestClientRefusals(t *testing.T) {
	tests := []struct {
		name     string
		peer     peer
		req      CommFile
		wantCode string
		wantText string
		dialErr  bool
	}{
		{name: "hello refused", peer: peer{refuse: "the client speaks sot-comm protocol 9"}, dialErr: true,
			wantCode: CodeHelloRefused, wantText: "the client speaks sot-comm protocol 9"},
		{name: "request refused", peer: peer{serve: echo}, req: CommFile{From: "me", To: "refuse"},
			wantCode: CodeNotHere, wantText: "no box knows that handle: refuse"},
		{name: "last word before close", peer: peer{serve: func(w *Writer, env Envelope) {
			w.WriteError(0, OpError, CodeBadFrame, "bad frame: payload field \"to\" is a JSON number, want string")
			w.w.(net.Conn).Close()
		}}, req: CommFile{From: "me", To: "x"}, wantCode: CodeBadFrame, wantText: "bad frame: payload field \"to\" is a JSON number, want string"},
	}
	// Each is met alike by a Dial then a Call and by a CallOnce.
	ways := map[string]func(ctx context.Context, path string, tc CommFile, dialErr bool) error{
		"Dial": func(ctx context.Context, path string, req CommFile, dialErr bool) error {
			c, err := Dial(ctx, path, testHello)
			if dialErr {
				return err
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			return c.Call(ctx, OpCommFile, req, nil)
		},
		"CallOnce": func(ctx context.Context, path string, req CommFile, _ bool) error {
			return callOnceT(t, path, ctx, req, nil)
		},
	}
	for _, tc := range tests {
		for way, call := range ways {
			t.Run(tc.name+"/"+way, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				err := call(ctx, tc.peer.start(t), tc.req, tc.dialErr)
				var re *Refusal
				if !errors.As(err, &re) {
					t.Fatalf("err = %v (%T), want a *Refusal", err, err)
				}
				if re.Code != tc.wantCode || re.Sentence != tc.wantText {
					t.Fatalf("refusal = %q %q, want %q %q", re.Code, re.Sentence, tc.wantCode, tc.wantText)
				}
			})
		}
	}
}

func TestClientCallDeadlineLeavesConnectionUsable(t *testing.T) {
	c := dialT(t, peer{serve: echo}.start(t))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := c.Call(ctx, OpCommFile, CommFile{From: "me", To: "slow", Text: "300ms"}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	var got CommFiled
	if err := c.Call(context.Background(), OpCommFile, CommFile{From: "me", To: "next"}, &got); err != nil || got.To != "next" {
		t.Fatalf("the next call = %+v, %v; want ok for next", got, err)
	}
}

func TestClientFailsPendingCallsWhenTheDaemonGoes(t *testing.T) {
	c := dialT(t, peer{serve: func(w *Writer, env Envelope) {
		w.w.(net.Conn).Close()
	}}.start(t))
	err := c.Call(context.Background(), OpCommFile, CommFile{From: "me", To: "x"}, nil)
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
	if err2 := c.Call(context.Background(), OpCommFile, CommFile{From: "me", To: "x"}, nil); !errors.Is(err2, ErrClosed) {
		t.Fatalf("a call after the close = %v, want ErrClosed", err2)
	}
}

func TestDialHonoursContext(t *testing.T) {
	// A listener that accepts (the kernel's backlog does) and never answers the hello.
	path := sockPath(t)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for name, dial := range map[string]func(context.Context) error{
		"Dial": func(ctx context.Context) error { _, err := Dial(ctx, path, testHello); return err },
		"CallOnce": func(ctx context.Context) error {
			return callOnceT(t, path, ctx, CommFile{From: "me", To: "x"}, nil)
		},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		if err := dial(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s: err = %v, want the deadline", name, err)
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Fatalf("%s took %s after a 50ms deadline", name, el)
		}
		cancel()
	}
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// An answer is a refusal exactly when Unmarshal finds an "error" in it, in
// whatever case or escapes it is spelled; any other is the answer, read once.
func TestAnswerTellsRefusalsByTheirErrorKey(t *testing.T) {
	for _, tc := range []struct {
		payload string
		refusal string // its sentence; "" for an answer
	}{
		{`{"error":"no","code":"not_here"}`, "no"},
		{`{"ERROR":"loud"}`, "loud"},
		{`{"\u0065rror":"escaped"}`, "escaped"},
		{`{"ok":true,"to":"b"}`, ""},
		{`{"ok":true,"to":"errors-are-a-handle"}`, ""},
		{`{"ok":true,"to":"b","error":""}`, ""},
		{`{"ok":true,"to":"b\n"}`, ""},
	} {
		var res CommFiled
		err := answer(Envelope{Op: OpCommFile, Payload: json.RawMessage(tc.payload)}, &res)
		r, refused := RefusalOf(err)
		switch {
		case tc.refusal != "" && (!refused || r.Sentence != tc.refusal):
			t.Errorf("answer(%s) = %+v, %v; want the refusal %q", tc.payload, res, err, tc.refusal)
		case tc.refusal == "" && (err != nil || !res.OK || res.To == ""):
			t.Errorf("answer(%s) = %+v, %v; want it read as the answer", tc.payload, res, err)
		}
	}
}
