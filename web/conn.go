package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/sotcomm/sotd/events"
	"github.com/sotcomm/sotd/wire"
)

// Ops a frontend may send besides hello, registry.list and workspace.list
// (package wire names those).
const (
	OpAgentSend     = "agent.send"
	OpFECommandSend = "fe.command.send"
	OpSubscribe     = "subscribe"
)

const (
	// flushWait bounds sending what is queued to a peer that is being closed.
	flushWait = time.Second
	// outQueue bounds what one connection may owe its peer; a connection that
	// cannot take a broadcast within it is closed, and its frontend reconnects.
	outQueue = 64
)

// HelloOK is the hello answer with the name this frontend was given.
type HelloOK struct {
	wire.HelloOK
	Name string `json:"name"`
}

// conn is one frontend's WebSocket.
type conn struct {
	s       *Server
	ws      *websocket.Conn
	name    string
	out     chan []byte
	cancel  context.CancelFunc
	sub     *events.Sub // set by subscribe; read by readLoop only
	pumping bool
	wg      sync.WaitGroup // pump
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	// Counted before Accept hijacks the connection: until then the
	// http.Server waits for this handler, after it only s.wg does.
	s.wg.Add(1)
	defer s.wg.Done()
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept has answered the request
	}
	ws.SetReadLimit(wire.MaxFrame)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	c := &conn{s: s, ws: ws, out: make(chan []byte, outQueue), cancel: cancel}
	if reason := c.hello(ctx); reason != "" {
		ws.Close(websocket.StatusPolicyViolation, reason)
		return
	}
	defer s.drop(c)
	flush, wrote := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(wrote)
		c.writeLoop(ctx, flush)
	}()
	err = c.readLoop(ctx)
	if websocket.CloseStatus(err) == -1 && ctx.Err() == nil {
		s.cfg.Log.Info("frontend connection ended", "name", c.name, "err", err)
	}
	close(flush) // the last answer (a bad_frame) goes out before the close
	<-wrote
	cancel()
	c.wg.Wait()
	if c.sub != nil {
		c.sub.Close()
	}
	ws.Close(websocket.StatusNormalClosure, "")
}

// frontendDoor is the page listener's part of hello admission: frontends only.
var frontendDoor = wire.Door{
	Roles:     []string{wire.RoleFE},
	WrongRole: "role %q is not fe; this listener serves frontends only, agents and the CLI use the daemon socket",
}

// hello reads and answers the first frame; the reason is "" when the frontend
// is accepted and registered under its name.
func (c *conn) hello(ctx context.Context) string {
	hctx, cancel := context.WithTimeout(ctx, wire.HelloWait)
	defer cancel()
	env, err := c.readEnvelope(hctx)
	if err != nil {
		return "no hello"
	}
	h, r := frontendDoor.Admit(env)
	if r != nil {
		c.writeNow(ctx, env.ID, env.Op, wire.Error{Error: r.Sentence, Code: r.Code})
		return r.Code
	}
	base := h.Name
	if base == "" {
		base = "fe@" + c.s.cfg.Host
	}
	if !strings.HasPrefix(base, "fe@") || len(base) == len("fe@") || strings.ContainsAny(base, "# \t\r\n") {
		r := wire.Refuse(wire.CodeHelloRefused, "frontend name %q is not fe@<host>; name the box the frontend runs on", base)
		c.writeNow(ctx, env.ID, env.Op, wire.Error{Error: r.Sentence, Code: r.Code})
		return r.Code
	}
	c.name = c.s.register(c, base)
	c.writeNow(ctx, env.ID, wire.OpHello, HelloOK{HelloOK: wire.HelloOK{Host: c.s.cfg.Host, Protocol: wire.Protocol, Daemon: "sotd"}, Name: c.name})
	return ""
}

// register names c after base, or base#2, #3… when a frontend of that name is
// already connected.
func (s *Server) register(c *conn, base string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := base
	for i := 2; s.conns[name] != nil; i++ {
		name = base + "#" + strconv.Itoa(i)
	}
	s.conns[name] = c
	return name
}

func (s *Server) drop(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns[c.name] == c {
		delete(s.conns, c.name)
	}
}

func (c *conn) readEnvelope(ctx context.Context) (wire.Envelope, error) {
	typ, b, err := c.ws.Read(ctx)
	if err != nil {
		return wire.Envelope{}, err
	}
	if typ != websocket.MessageText {
		return wire.Envelope{}, fmt.Errorf("%w: a binary message; send each envelope as a text message", wire.ErrFrame)
	}
	return wire.Decode(bytes.TrimSuffix(b, []byte("\n")))
}

func (c *conn) readLoop(ctx context.Context) error {
	for {
		env, err := c.readEnvelope(ctx)
		if errors.Is(err, wire.ErrFrame) {
			c.send(ctx, 0, wire.OpError, wire.Error{Error: err.Error(), Code: wire.CodeBadFrame})
			return err
		}
		if err != nil {
			return err
		}
		if env.Kind != wire.KindReq {
			continue // a frontend has nothing to answer; ignore its res and evt
		}
		p, err := c.do(ctx, env)
		if err != nil {
			re, ok := wire.RefusalOf(err)
			if !ok {
				re = wire.Refuse(wire.CodeBackend, "%v", err)
			}
			p = wire.Error{Error: re.Sentence, Code: re.Code}
		}
		if err := c.send(ctx, env.ID, env.Op, p); err != nil {
			return err
		}
		// The pump starts after the subscribe answer is queued, so the
		// snapshot follows it.
		if c.sub != nil && !c.pumping {
			c.pumping = true
			c.wg.Go(func() { c.pump(ctx) })
		}
	}
}
