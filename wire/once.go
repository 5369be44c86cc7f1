package wire

import (
	"context"
	"fmt"
	"net"
	"time"
)

// onceBuffer is CallOnce's read buffer: an answer longer than this is still
// read whole (NewReaderSize), and a command's one ask is seldom that long (a
// send's or a poll's rows are a few hundred bytes). It is made for each call,
// so a larger one was most of what an ask allocated, and of the collections
// that came with it in a process that asks often (sotd mcp, the hooks).
const onceBuffer = 4 << 10

// CallOnce says hello on conn and makes one call, the two frames in one write,
// then reads both answers on the calling goroutine: one round trip where Dial
// then Call take two, and no reader or writer goroutine, for a command that
// asks the daemon one thing (the registry's rows for a send, a poll, a status).
// The daemon serves nothing before it accepts the hello: it reads the call
// only then. A refused hello is a *Refusal carrying the daemon's words, as
// Dial's, and the call then has no answer; so is a refused call. Events are
// passed over: CallOnce is for an op that sends none. ctx bounds the exchange;
// conn is the caller's to close.
func CallOnce(ctx context.Context, conn net.Conn, hello Hello, op string, req, resp any) error {
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	frames, err := EncodeFrame(helloID, KindReq, OpHello, hello)
	if err != nil {
		return err
	}
	call, err := EncodeFrame(helloID+1, KindReq, op, req)
	if err != nil {
		return err
	}
	if _, err := conn.Write(append(frames, call...)); err != nil {
		return ctxErr(ctx, fmt.Errorf("send hello and %s: %w", op, err))
	}
	r := NewReaderSize(conn, onceBuffer)
	env, err := r.Read()
	if err != nil {
		return ctxErr(ctx, fmt.Errorf("read the answer to hello: %w", err))
	}
	if err := answer(env, nil); err != nil {
		return err
	}
	for {
		env, err := r.Read()
		if err != nil {
			return ctxErr(ctx, fmt.Errorf("read the answer to %s: %w", op, err))
		}
		switch {
		case env.Kind == KindRes && env.ID == helloID+1:
			return answer(env, resp)
		case env.Kind == KindRes:
			// Not this call's answer: a refusal of id 0 is the daemon's last
			// word before it closes, and anything else is no answer at all.
			if err := answer(env, nil); err != nil {
				return err
			}
			return fmt.Errorf("%w: an answer of id %d came where %s's (id %d) was awaited", ErrClosed, env.ID, op, helloID+1)
		}
	}
}
