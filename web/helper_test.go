package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/sotcomm/sotd/events"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/wire"
)

// fakeBackend keeps a View in memory and publishes changes to it the way the
// daemon will: the change applied, then published, under one lock.
type fakeBackend struct {
	bus *events.Bus
	mu  sync.Mutex
	v   View
}

func newFake(v View) *fakeBackend { return &fakeBackend{bus: events.New(), v: v} }

func (f *fakeBackend) WorkspaceList(context.Context) (any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return map[string]any{"rows": f.v.Rows}, nil
}

func (f *fakeBackend) RegistryList(context.Context) (any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	agents := map[string]Agent{}
	for _, a := range f.v.Agents {
		agents[a.Handle] = a
	}
	return wire.RegistryList{Agents: mustJSON(agents)}, nil
}

func (f *fakeBackend) Snapshot() View {
	f.mu.Lock()
	defer f.mu.Unlock()
	v := f.v
	v.Agents = append([]Agent(nil), v.Agents...)
	return v
}

func (f *fakeBackend) Events() *events.Bus { return f.bus }

// join adds or replaces an agent and publishes it.
func (f *fakeBackend) join(a Agent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.v.Agents {
		if f.v.Agents[i].Handle == a.Handle {
			f.v.Agents[i] = a
			f.bus.Publish(EvAgentState, a)
			return
		}
	}
	f.v.Agents = append(f.v.Agents, a)
	f.bus.Publish(EvAgentState, a)
}

// boxRows replaces another box's rows and publishes them.
func (f *fakeBackend) boxRows(box string, rows []Row) {
	f.mu.Lock()
	defer f.mu.Unlock()
	kept := []Row{}
	for _, r := range f.v.RemoteRows {
		if r.Host != box {
			kept = append(kept, r)
		}
	}
	f.v.RemoteRows = append(kept, rows...)
	f.bus.Publish(EvBoxRows, BoxRows{Box: box, Rows: rows})
}

func (f *fakeBackend) unread(handle string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.v.Agents {
		if f.v.Agents[i].Handle == handle {
			f.v.Agents[i].Unread = n
		}
	}
	f.bus.Publish(EvUnread, Unread{Handle: handle, Count: n})
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

type rig struct {
	srv  *Server
	fake *fakeBackend
	home home.Home
	stop func()
}

// startServer runs a Server for a fresh home on an ephemeral port until the
// test ends.
func startServer(t *testing.T, buffer int, v View) *rig {
	t.Helper()
	h, err := home.At(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return runServer(t, h, "127.0.0.1:0", newFake(v), buffer)
}

// runServer serves home h on addr from fake until stop or the test's end;
// tune, when given, adjusts the server before it serves.
func runServer(t *testing.T, h home.Home, addr string, fake *fakeBackend, buffer int, tune ...func(*Server)) *rig {
	t.Helper()
	srv, err := New(Config{Home: h, Host: "box", Addr: addr, Backend: fake, Buffer: buffer})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tune {
		f(srv)
	}
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Serve: %v", err)
			}
			fake.bus.Close()
		})
	}
	t.Cleanup(stop)
	return &rig{srv: srv, fake: fake, home: h, stop: stop}
}

// client is a frontend program's side of /v1/ws.
type client struct {
	t    *testing.T
	ws   *websocket.Conn
	id   uint64
	name string
	held []wire.Envelope // events read while waiting for an answer
}

func (r *rig) dial(t *testing.T, token string) (*websocket.Conn, *http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hdr := http.Header{}
	if token != "" {
		hdr.Set("Authorization", "Bearer "+token)
	}
	ws, resp, err := websocket.Dial(ctx, "ws://"+r.srv.Addr()+"/v1/ws", &websocket.DialOptions{HTTPHeader: hdr})
	if ws != nil {
		ws.SetReadLimit(wire.MaxFrame)
		t.Cleanup(func() { ws.CloseNow() })
	}
	return ws, resp, err
}

// connect dials with the token and says hello as a frontend named name.
func (r *rig) connect(t *testing.T, name string) *client {
	t.Helper()
	ws, _, err := r.dial(t, r.srv.token)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	c := &client{t: t, ws: ws}
	env := c.call(wire.OpHello, wire.Hello{Role: wire.RoleFE, Host: "box", Name: name, Protocol: wire.Protocol})
	var ok HelloOK
	if err := json.Unmarshal(env.Payload, &ok); err != nil || ok.Name == "" {
		t.Fatalf("hello answered %s", env.Payload)
	}
	c.name = ok.Name
	return c
}

func (c *client) write(op string, p any) uint64 {
	c.t.Helper()
	c.id++
	f, err := wire.EncodeFrame(c.id, wire.KindReq, op, p)
	if err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.ws.Write(ctx, websocket.MessageText, f); err != nil {
		c.t.Fatalf("write %s: %v", op, err)
	}
	return c.id
}

func (c *client) read(wait time.Duration) (wire.Envelope, error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, b, err := c.ws.Read(ctx)
	if err != nil {
		return wire.Envelope{}, err
	}
	return wire.Decode(bytes.TrimSuffix(b, []byte("\n")))
}

func (c *client) next() wire.Envelope {
	c.t.Helper()
	if len(c.held) > 0 {
		env := c.held[0]
		c.held = c.held[1:]
		return env
	}
	env, err := c.read(10 * time.Second)
	if err != nil {
		c.t.Fatalf("%s: read: %v", c.name, err)
	}
	return env
}

// call sends a request and returns its answer; events that arrive first are
// held for next.
func (c *client) call(op string, p any) wire.Envelope {
	c.t.Helper()
	id := c.write(op, p)
	for {
		env, err := c.read(10 * time.Second)
		if err != nil {
			c.t.Fatalf("%s: waiting for the %s answer: %v", c.name, op, err)
		}
		if env.Kind == wire.KindRes && env.ID == id {
			return env
		}
		c.held = append(c.held, env)
	}
}

// quiet asserts nothing arrives for a moment. The wait's timeout closes the
// connection, so it is a client's last call.
func (c *client) quiet() {
	c.t.Helper()
	if len(c.held) > 0 {
		c.t.Fatalf("%s holds %d unexpected events", c.name, len(c.held))
	}
	if env, err := c.read(200 * time.Millisecond); err == nil {
		c.t.Fatalf("%s got %s %s %s, want nothing", c.name, env.Kind, env.Op, env.Payload)
	}
}

func errorOf(env wire.Envelope) wire.Error {
	var e wire.Error
	json.Unmarshal(env.Payload, &e)
	return e
}
