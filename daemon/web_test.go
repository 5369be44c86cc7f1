package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/sotcomm/sotd/events"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/web"
	"github.com/sotcomm/sotd/wire"
)

// pageRig is a daemon serving its status page on a free loopback port.
type pageRig struct {
	*rig
	addr, token string
}

// startPage starts a rig, tuned as startRig tunes it, whose page listens on a
// free port.
func startPage(t *testing.T, tune ...func(*Daemon)) *pageRig {
	t.Helper()
	return pageOf(t, startRig(t, append(tune, func(d *Daemon) { d.cfg.HTTP = "127.0.0.1:0" })...), "box")
}

// pageOf is the status page of r's daemon, which serves box host.
func pageOf(t *testing.T, r *rig, host string) *pageRig {
	t.Helper()
	var u string
	waitFor(t, "the status page to listen", func() bool {
		var err error
		u, err = web.URL(r.home, host)
		return err == nil
	})
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return &pageRig{rig: r, addr: p.Host, token: p.Query().Get("token")}
}

// subscribe opens /v1/ws as a frontend, subscribes and reads the snapshot.
func (p *pageRig) subscribe(t *testing.T) (*websocket.Conn, web.View) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+p.addr+"/v1/ws", &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + p.token}}})
	if err != nil {
		t.Fatalf("dial the status page: %v", err)
	}
	ws.SetReadLimit(wire.MaxFrame)
	t.Cleanup(func() { ws.CloseNow() })
	for i, req := range []struct {
		op string
		p  any
	}{{wire.OpHello, wire.Hello{Role: wire.RoleFE, Host: "box", Protocol: wire.Protocol}}, {web.OpSubscribe, struct{}{}}} {
		f, err := wire.EncodeFrame(uint64(i+1), wire.KindReq, req.op, req.p)
		if err != nil {
			t.Fatal(err)
		}
		if err := ws.Write(ctx, websocket.MessageText, f); err != nil {
			t.Fatal(err)
		}
		if env := readWS(t, ws); env.Kind != wire.KindRes || strings.Contains(string(env.Payload), `"code"`) {
			t.Fatalf("%s answered %s %s", req.op, env.Kind, env.Payload)
		}
	}
	env := readWS(t, ws)
	var snap struct {
		Data web.View `json:"data"`
	}
	if env.Op != events.KindSnapshot || json.Unmarshal(env.Payload, &snap) != nil {
		t.Fatalf("first event %s %s, want the snapshot", env.Op, env.Payload)
	}
	return ws, snap.Data
}

// awaitWithin bounds awaitEvent: it fails only an event that never comes.
const awaitWithin = 30 * time.Second

func readWS(t *testing.T, ws *websocket.Conn) wire.Envelope {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, b, err := ws.Read(ctx)
	if err != nil {
		t.Fatalf("read the status page's stream: %v", err)
	}
	env, err := wire.Decode(bytes.TrimSuffix(b, []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// awaitEvent reads events until one of kind satisfies ok; the watch publishes
// other changes (unread counts of every agent) in between. A stream that keeps
// sending other events fails it after awaitWithin, not at the package's timeout.
func awaitEvent[T any](t *testing.T, ws *websocket.Conn, kind string, ok func(T) bool) T {
	t.Helper()
	deadline := time.Now().Add(awaitWithin)
	for other := 0; ; other++ {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for the %s event wanted; %d other events came", awaitWithin, kind, other)
		}
		env := readWS(t, ws)
		var ev struct {
			Data T `json:"data"`
		}
		if env.Op == kind && json.Unmarshal(env.Payload, &ev) == nil && ok(ev.Data) {
			return ev.Data
		}
	}
}

func TestPageSeesJoinAndMail(t *testing.T) {
	t.Parallel()
	p := startPage(t)
	ws, snap := p.subscribe(t)
	if snap.Host != "box" {
		t.Fatalf("snapshot %+v, want box's", snap)
	}
	if len(snap.Agents) == 0 {
		// The page listened before the watch's first look; what it reads
		// follows as events.
		awaitEvent(t, ws, web.EvAgentState, func(a web.Agent) bool { return a.Handle == "bob" && a.Live })
	}

	writeRegistry(t, p.home, map[string]string{
		"bob":   registry.Stamp(testNow.Add(-time.Minute)),
		"carol": registry.Stamp(testNow),
		"stale": registry.Stamp(testNow.Add(-time.Hour)),
		"dave":  registry.Stamp(testNow),
	})
	dave := awaitEvent(t, ws, web.EvAgentState, func(a web.Agent) bool { return a.Handle == "dave" })
	if !dave.Live || dave.Host != "box" {
		t.Fatalf("dave joined as %+v, want live on box", dave)
	}

	before := filedTotal(t, p)
	c := p.dial(t)
	for i := range 2 {
		if _, err := call(t, c, wire.CommFile{From: "alice", To: "dave", Text: "hi " + strconv.Itoa(i), ID: mail.NewID()}); err != nil {
			t.Fatal(err)
		}
		n := i + 1
		awaitEvent(t, ws, web.EvUnread, func(u web.Unread) bool { return u.Handle == "dave" && u.Count == n })
	}
	if after := filedTotal(t, p); after < before+2 {
		t.Fatalf("sotd_lines_filed_total went from %v to %v after two lines were filed", before, after)
	}

	_, snap = p.subscribe(t)
	for _, a := range snap.Agents {
		if a.Handle == "dave" && a.Unread != 2 {
			t.Fatalf("a new snapshot shows dave as %+v, want 2 unread", a)
		}
	}
}

// filedTotal reads sotd_lines_filed_total from /metrics. The counter is the
// process's, shared with the other tests, so only its growth is compared.
func filedTotal(t *testing.T, p *pageRig) float64 {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+p.addr+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "sotd_lines_filed_total "); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("/metrics (%s) has no sotd_lines_filed_total", resp.Status)
	return 0
}

func TestSotdURLNeedsAServingDaemon(t *testing.T) {
	h := newHome(t)
	if _, err := web.URL(h, "box"); err == nil {
		t.Fatal("a home no daemon serves has a status page URL")
	}
	p := startPage(t)
	if err := p.stop(t); err != nil {
		t.Fatal(err)
	}
	if u, err := web.URL(p.home, "box"); err == nil {
		t.Fatalf("a stopped daemon's page is still at %s", u)
	}
}
