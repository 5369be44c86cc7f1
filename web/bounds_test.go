package web

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/wire"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
)

// boundedServer serves a fresh home with the listener's bounds set by tune.
func boundedServer(t *testing.T, tune func(*bounds)) *rig {
	t.Helper()
	h, err := home.At(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return runServer(t, h, "127.0.0.1:0", newFake(View{}), 0, func(s *Server) { tune(&s.bounds) })
}

// tcp is a raw connection to the listener.
type tcp struct {
	t    *testing.T
	nc   net.Conn
	br   *bufio.Reader
	host string // the listener's address, as a browser's Host header names it
}

func (r *rig) tcp(t *testing.T) *tcp {
	t.Helper()
	nc, err := net.Dial("tcp", r.srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &tcp{t: t, nc: nc, br: bufio.NewReader(nc), host: r.srv.Addr()}
}

// get sends a keep-alive GET / with token ("" for none).
func (c *tcp) get(token string) {
	c.t.Helper()
	req := "GET / HTTP/1.1\r\nHost: " + c.host + "\r\n"
	if token != "" {
		req += "Authorization: Bearer " + token + "\r\n"
	}
	if _, err := io.WriteString(c.nc, req+"\r\n"); err != nil {
		c.t.Fatal(err)
	}
}

// response reads one answer within wait.
func (c *tcp) response(wait time.Duration) (*http.Response, error) {
	c.nc.SetReadDeadline(time.Now().Add(wait))
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, err
}

// closed reports whether the server closed the connection within wait: a read
// ends (EOF, or a reset) rather than timing out.
func (c *tcp) closed(wait time.Duration) bool {
	c.nc.SetReadDeadline(time.Now().Add(wait))
	_, err := c.br.ReadByte()
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// Every peer that asked without the token is closed on, at once, so no local
// account can hold the listener's connections (and the daemon's descriptors)
// by keeping them alive; the owner is still served after more 401s than the
// cap, with every one of those connections left open on the peer's side.
func TestUnauthorizedConnectionsAreClosed(t *testing.T) {
	r := startServer(t, 0, View{})
	for i := range defaultBounds.maxConns + 16 {
		c := r.tcp(t)
		c.get("")
		resp, err := c.response(5 * time.Second)
		if err != nil || resp.StatusCode != http.StatusUnauthorized || !resp.Close {
			t.Fatalf("request %d without the token: %+v, %v; want 401 with Connection: close", i, resp, err)
		}
		if !c.closed(5 * time.Second) {
			t.Fatalf("connection %d stayed open after its 401", i)
		}
	}
	owner := r.tcp(t)
	owner.get(r.srv.token)
	if resp, err := owner.response(5 * time.Second); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the owner's request: %+v, %v; want 200", resp, err)
	}
}

// A peer that sends nothing, or half a request, or stays quiet after an answer
// is closed after its bound; a frontend's WebSocket, past the upgrade, is not.
func TestQuietConnectionsAreClosed(t *testing.T) {
	const wait = 200 * time.Millisecond
	r := boundedServer(t, func(b *bounds) { b.readHeader, b.read, b.write, b.idle = wait, wait, wait, wait })
	fe := r.connect(t, "fe@box")
	fe.call(OpSubscribe, struct{}{})

	silent := r.tcp(t)
	half := r.tcp(t)
	io.WriteString(half.nc, "GET / HTTP/1.1\r\nHost: "+half.host+"\r\n")
	kept := r.tcp(t)
	kept.get(r.srv.token)
	if resp, err := kept.response(5 * time.Second); err != nil || resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("an authorized request: %+v, %v; want 200, kept alive", resp, err)
	}
	for name, c := range map[string]*tcp{"silent": silent, "half a request": half, "idle after an answer": kept} {
		if !c.closed(5 * time.Second) {
			t.Errorf("the %s connection stayed open past the %s bounds", name, wait)
		}
	}
	// The WebSocket has now been quiet longer than every bound.
	if env := fe.call(wire.OpRegistryList, struct{}{}); env.Kind != wire.KindRes || errorOf(env).Error != "" {
		t.Fatalf("the frontend's WebSocket after the bounds: %s %s", env.Kind, env.Payload)
	}
}

// At the cap, the next connection is held unserved until one closes.
func TestListenerCap(t *testing.T) {
	const max = 3
	r := boundedServer(t, func(b *bounds) { b.maxConns = max })
	var held []*tcp
	for range max {
		held = append(held, r.tcp(t))
	}
	next := r.tcp(t)
	next.get(r.srv.token)
	if resp, err := next.response(300 * time.Millisecond); err == nil {
		t.Fatalf("connection %d was answered %s while %d were open, the cap", max+1, resp.Status, max)
	}
	held[0].nc.Close()
	next.br.Reset(next.nc)
	if resp, err := next.response(5 * time.Second); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the held request once a connection closed: %+v, %v; want 200", resp, err)
	}
}
