package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/sotcomm/sotd/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestHelloRefused(t *testing.T) {
	r := startServer(t, 0, View{})
	t.Run("no token", func(t *testing.T) {
		_, resp, err := r.dial(t, "")
		if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("dial without token: err %v, resp %v; want 401", err, resp)
		}
	})
	t.Run("wrong token", func(t *testing.T) {
		_, resp, err := r.dial(t, strings.Repeat("0", 64))
		if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("dial with a wrong token: err %v; want 401", err)
		}
	})
	tests := []struct {
		name  string
		op    string
		hello wire.Hello
		says  string
	}{
		{"agent role", wire.OpHello, wire.Hello{Role: wire.RoleAgent, Host: "box", Protocol: wire.Protocol}, `role "agent" is not fe`},
		{"cli role", wire.OpHello, wire.Hello{Role: wire.RoleCLI, Host: "box", Protocol: wire.Protocol}, `role "cli" is not fe`},
		{"old protocol", wire.OpHello, wire.Hello{Role: wire.RoleFE, Host: "box", Protocol: 0}, "protocol 0"},
		{"not an fe name", wire.OpHello, wire.Hello{Role: wire.RoleFE, Name: "alice", Protocol: wire.Protocol}, "not fe@<host>"},
		{"op before hello", wire.OpRegistryList, wire.Hello{}, "say hello first"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, _, err := r.dial(t, r.srv.token)
			if err != nil {
				t.Fatal(err)
			}
			c := &client{t: t, ws: ws}
			env := c.call(tc.op, tc.hello)
			if e := errorOf(env); e.Code != wire.CodeHelloRefused || !strings.Contains(e.Error, tc.says) {
				t.Fatalf("answer %s, want hello_refused saying %q", env.Payload, tc.says)
			}
			if _, err := c.read(5e9); websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
				t.Fatalf("after a refused hello: %v, want the connection closed", err)
			}
		})
	}
}

func TestFrontendNamesGetInstanceSuffix(t *testing.T) {
	r := startServer(t, 0, View{})
	want := []string{"fe@laptop", "fe@laptop#2", "fe@laptop#3"}
	for _, w := range want {
		if c := r.connect(t, "fe@laptop"); c.name != w {
			t.Fatalf("name %q, want %q", c.name, w)
		}
	}
	if c := r.connect(t, ""); c.name != "fe@box" {
		t.Fatalf("a frontend without a name is %q, want fe@box", c.name)
	}
}

func TestAgentSendFansOutToEveryConnection(t *testing.T) {
	r := startServer(t, 0, View{})
	cs := []*client{r.connect(t, "fe@a"), r.connect(t, "fe@b"), r.connect(t, "fe@c")}

	ans := cs[0].call(OpAgentSend, map[string]any{"to": "", "text": "nav", "nav": map[string]int{"row": 2}})
	var d delivered
	if err := json.Unmarshal(ans.Payload, &d); err != nil || !d.OK || d.Delivered != 3 {
		t.Fatalf("agent.send answered %s, want ok to 3", ans.Payload)
	}
	for _, c := range cs {
		env := c.next()
		var got map[string]any
		json.Unmarshal(env.Payload, &got)
		if env.Kind != wire.KindEvt || env.Op != EvAgentMessage || got["text"] != "nav" || got["from"] != "fe@a" || got["nav"] == nil {
			t.Fatalf("%s got %s %s %s, want the agent.message", c.name, env.Kind, env.Op, env.Payload)
		}
	}

	// Mail is never published.
	ans = cs[1].call(OpAgentSend, map[string]any{"to": "alice", "text": "hi"})
	if e := errorOf(ans); e.Code != wire.CodeMailRequiresCommFile || !strings.Contains(e.Error, "@alice") {
		t.Fatalf("agent.send to a handle answered %s, want mail_requires_comm_file", ans.Payload)
	}
	for _, c := range cs {
		c.quiet()
	}
}

func TestFECommandReachesOnlyItsTarget(t *testing.T) {
	r := startServer(t, 0, View{})
	sender, a, b := r.connect(t, "fe@desk"), r.connect(t, "fe@laptop"), r.connect(t, "fe@laptop")

	ans := sender.call(OpFECommandSend, FECommand{Cmd: "open-url", Args: []string{"https://example.org"}, Target: b.name})
	if errorOf(ans).Code != "" {
		t.Fatalf("fe.command.send answered %s", ans.Payload)
	}
	env := b.next()
	var got FECommand
	json.Unmarshal(env.Payload, &got)
	if env.Op != EvFECommand || got.Cmd != "open-url" || got.From != "fe@desk" || got.Target != "fe@laptop#2" {
		t.Fatalf("target got %s %s", env.Op, env.Payload)
	}

	tests := []struct {
		name string
		cmd  FECommand
		code string
	}{
		{"absent target", FECommand{Cmd: "x", Target: "fe@gone"}, wire.CodeNoFrontend},
		{"no cmd", FECommand{Target: a.name}, wire.CodeBadRequest},
	}
	for _, tc := range tests {
		if e := errorOf(sender.call(OpFECommandSend, tc.cmd)); e.Code != tc.code {
			t.Errorf("%s: code %q, want %q", tc.name, e.Code, tc.code)
		}
	}
	a.quiet()
	sender.quiet()
	b.quiet()
}

func TestQueries(t *testing.T) {
	v := View{Host: "box", Agents: []Agent{{Handle: "alice", Host: "box", Live: true}}, Rows: []Row{{ID: "r1", Host: "box", Handle: "alice", Phase: "running"}}}
	r := startServer(t, 0, v)
	c := r.connect(t, "fe@box")
	tests := []struct {
		op   string
		want string
	}{
		{wire.OpWorkspaceList, `"phase":"running"`},
		{wire.OpRegistryList, `"alice":{"handle":"alice"`},
	}
	for _, tc := range tests {
		if env := c.call(tc.op, struct{}{}); !strings.Contains(string(env.Payload), tc.want) {
			t.Errorf("%s answered %s, want %s in it", tc.op, env.Payload, tc.want)
		}
	}
	if e := errorOf(c.call("comm.file", struct{}{})); e.Code != wire.CodeUnknownOp {
		t.Errorf("comm.file over the web answered code %q, want unknown_op", e.Code)
	}
	if e := errorOf(c.call(wire.OpHello, wire.Hello{Role: wire.RoleFE, Protocol: wire.Protocol})); e.Code != wire.CodeBadRequest {
		t.Errorf("a second hello answered code %q, want bad_request", e.Code)
	}
	// A frame that is not an envelope is answered bad_frame, and the connection ends.
	if err := c.ws.Write(context.Background(), websocket.MessageText, []byte(`{"v":1,"kind":"req"`)); err != nil {
		t.Fatal(err)
	}
	if env := c.next(); env.Op != wire.OpError || errorOf(env).Code != wire.CodeBadFrame {
		t.Errorf("a broken frame answered %s %s, want error bad_frame", env.Op, env.Payload)
	}
	if _, err := c.read(5 * time.Second); err == nil {
		t.Error("the connection stayed open after a broken frame")
	}
}
