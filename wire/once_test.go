package wire

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

func callOnceT(t *testing.T, path string, ctx context.Context, req CommFile, resp any) error {
	t.Helper()
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return CallOnce(ctx, conn, testHello, OpCommFile, req, resp)
}

// TestCallOnceAnswers: an answer, one after events, none (the connection
// ended first); CallOnce's refusals are TestClientRefusals'.
func TestCallOnceAnswers(t *testing.T) {
	tests := []struct {
		name   string
		peer   peer
		req    CommFile
		closed bool // no answer: the connection ended first
	}{
		{name: "answered", peer: peer{serve: echo}, req: CommFile{From: "me", To: "bob"}},
		{name: "events passed over", peer: peer{serve: func(w *Writer, env Envelope) {
			w.Write(env.ID, KindEvt, "pty.output", map[string]string{"data": "x"})
			echo(w, env)
		}}, req: CommFile{From: "me", To: "bob"}},
		{name: "closed unanswered", peer: peer{serve: func(w *Writer, env Envelope) {
			w.w.(net.Conn).Close()
		}}, req: CommFile{From: "me", To: "x"}, closed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var got CommFiled
			err := callOnceT(t, tc.peer.start(t), ctx, tc.req, &got)
			var re *Refusal
			switch {
			case tc.closed:
				if err == nil || errors.As(err, &re) {
					t.Fatalf("err = %v, want the connection's end", err)
				}
			case err != nil || !got.OK || got.To != tc.req.To:
				t.Fatalf("answer = %+v, %v; want ok for %s", got, err, tc.req.To)
			}
		})
	}
}

// TestCallOnceSendsTheCallWithTheHello is a daemon that answers the hello only
// once the call has come: CallOnce's one round trip, where a client that
// waits for the hello's answer before it asks would wait out its deadline.
func TestCallOnceSendsTheCallWithTheHello(t *testing.T) {
	path := sockPath(t)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan struct{})
	go func() {
		defer close(served)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r, w := NewReader(c), NewWriter(c)
		hello, err := r.Read()
		if err != nil {
			return
		}
		call, err := r.Read()
		if err != nil {
			return
		}
		w.Write(hello.ID, KindRes, OpHello, HelloOK{Host: "box", Protocol: Protocol})
		echo(w, call)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var got CommFiled
	if err := callOnceT(t, path, ctx, CommFile{From: "me", To: "bob"}, &got); err != nil || got.To != "bob" {
		t.Fatalf("answer = %+v, %v; want ok for bob", got, err)
	}
	<-served
}
