package daemon

import (
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// exchange is one step of a transcript: what the client sends, then what the
// daemon must answer. code "" is a success, codeClosed is the connection closing
// with no answer.
type exchange struct {
	send string
	code string
	says string // a part of the refusal sentence
}

const codeClosed = "(closed)"

func me(t *testing.T) string {
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return u.Username
}

func TestTranscripts(t *testing.T) {
	self := me(t)
	hello := helloFrame(self, wire.Protocol)
	list := frame(7, wire.OpRegistryList, `{}`)
	tests := []struct {
		name  string
		steps []exchange
	}{
		{"hello accepted, then served", []exchange{
			{send: hello},
			{send: list},
		}},
		{"hello without os_user accepted", []exchange{
			{send: helloFrame("", wire.Protocol)},
			{send: list},
		}},
		{"frame before hello", []exchange{
			{send: list, code: wire.CodeHelloRefused, says: "the first frame must be hello"},
			{code: codeClosed},
		}},
		{"newer protocol", []exchange{
			{send: helloFrame(self, wire.Protocol+1), code: wire.CodeHelloRefused, says: "the client speaks sot-comm protocol 2 and this daemon speaks only protocol 1; update this daemon (sotd) to one that speaks it, or use a client that speaks protocol 1"},
			{code: codeClosed},
		}},
		{"older protocol", []exchange{
			{send: helloFrame(self, 0), code: wire.CodeHelloRefused, says: "the client speaks sot-comm protocol 0 and this daemon speaks only protocol 1; update the client"},
			{code: codeClosed},
		}},
		{"os_user as this daemon's uid", []exchange{
			{send: helloFrame(fmt.Sprintf("uid:%d", os.Getuid()), wire.Protocol)},
			{send: list},
		}},
		{"os_user as another uid", []exchange{
			{send: helloFrame(fmt.Sprintf("uid:%d", os.Getuid()+1), wire.Protocol), code: wire.CodeHelloRefused, says: fmt.Sprintf(`the hello names OS user "uid:%d" but this daemon runs as %s (uid:%d)`, os.Getuid()+1, self, os.Getuid())},
			{code: codeClosed},
		}},
		{"wrong os_user", []exchange{
			{send: helloFrame("someone-else", wire.Protocol), code: wire.CodeHelloRefused, says: `names OS user "someone-else"`},
			{code: codeClosed},
		}},
		{"unknown role", []exchange{
			{send: frame(1, wire.OpHello, `{"role":"boss","host":"box","protocol":1}`), code: wire.CodeHelloRefused, says: `role "boss" is not agent, cli, fe or link`},
			{code: codeClosed},
		}},
		{"unknown op keeps the connection", []exchange{
			{send: hello},
			{send: frame(2, "comm.teleport", `{}`), code: wire.CodeUnknownOp, says: "unknown op: comm.teleport"},
			{send: list},
		}},
		{"second hello", []exchange{
			{send: hello},
			{send: hello, code: wire.CodeBadRequest, says: "already accepted"},
			{send: list},
		}},
		{"frame over 1 MiB", []exchange{
			{send: hello},
			{send: strings.Repeat("a", wire.MaxFrame+10), code: wire.CodeBadFrame, says: "over 1048576 bytes"},
			{code: codeClosed},
		}},
		{"invalid UTF-8", []exchange{
			{send: hello},
			{send: `{"v":1,"id":2,"kind":"req","op":"comm.file","payload":{"from":"alice","to":"bob","text":"` + "\xff\xfe" + `"}}` + "\n", code: wire.CodeBadFrame, says: "not valid UTF-8"},
			{code: codeClosed},
		}},
		{"not JSON", []exchange{
			{send: hello},
			{send: "hello there\n", code: wire.CodeBadFrame, says: "bad frame"},
			{code: codeClosed},
		}},
		{"not JSON before hello", []exchange{
			{send: "{\"v\":1,\n", code: wire.CodeBadFrame, says: "bad frame"},
			{code: codeClosed},
		}},
		{"wrong-typed field", []exchange{
			{send: hello},
			{send: frame(2, wire.OpCommFile, `{"from":"alice","to":5,"text":"hi"}`), code: wire.CodeBadFrame, says: `payload field "to" is a JSON number, want string`},
			{code: codeClosed},
		}},
		{"a response frame from a client", []exchange{
			{send: hello},
			{send: `{"v":1,"id":3,"kind":"res","op":"registry.list"}` + "\n", code: wire.CodeBadFrame, says: "only requests"},
			{code: codeClosed},
		}},
	}
	r := startRig(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := r.raw(t)
			for i, st := range tc.steps {
				if st.send != "" {
					c.send(st.send)
				}
				env, closed := c.next()
				switch {
				case st.code == codeClosed:
					if !closed {
						t.Fatalf("step %d: got %s %s, want the connection closed", i, env.Op, env.Payload)
					}
				case closed:
					t.Fatalf("step %d: the connection closed, want %q", i, st.code)
				default:
					checkAnswer(t, i, env, st)
				}
			}
		})
	}
	if !r.logs.Contains("hello refused") || !r.logs.Contains("the first frame must be hello") {
		t.Errorf("refused hellos were not logged with their reason:\n%s", r.logs.String())
	}
}

func TestTruncatedFrame(t *testing.T) {
	r := startRig(t)
	c := r.raw(t)
	c.send(helloFrame(me(t), wire.Protocol))
	if _, closed := c.next(); closed {
		t.Fatal("hello was not answered")
	}
	if _, err := c.nc.Write([]byte(`{"v":1,"id":2,"kind":"req","op":"registry.list"`)); err != nil {
		t.Fatal(err)
	}
	if err := c.nc.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	env, closed := c.next()
	if closed {
		t.Fatal("the connection closed with no bad_frame answer")
	}
	checkAnswer(t, 1, env, exchange{code: wire.CodeBadFrame, says: "closed in the middle of a frame"})
	if _, closed := c.next(); !closed {
		t.Fatal("the connection stayed open after a truncated frame")
	}
}

func checkAnswer(t *testing.T, step int, env wire.Envelope, want exchange) {
	t.Helper()
	if env.Kind != wire.KindRes {
		t.Fatalf("step %d: kind %q, want res", step, env.Kind)
	}
	var refusal wire.Error
	json.Unmarshal(env.Payload, &refusal)
	if refusal.Code != want.code {
		t.Fatalf("step %d: answer %s, want code %q", step, env.Payload, want.code)
	}
	if !strings.Contains(refusal.Error, want.says) {
		t.Fatalf("step %d: refusal %q does not say %q", step, refusal.Error, want.says)
	}
	if want.code == "" && env.Op == wire.OpHello {
		var ok wire.HelloOK
		if err := json.Unmarshal(env.Payload, &ok); err != nil || ok.Host != "box" || ok.Protocol != wire.Protocol {
			t.Fatalf("step %d: hello answer %s, want host box, protocol %d", step, env.Payload, wire.Protocol)
		}
	}
}

func TestSilentPeerIsClosed(t *testing.T) {
	r := startRig(t, func(d *Daemon) { d.helloWait = 100 * time.Millisecond })
	c := r.raw(t)
	env, closed := c.next()
	if closed {
		t.Fatal("a silent peer was closed without a word")
	}
	checkAnswer(t, 0, env, exchange{code: wire.CodeHelloRefused, says: "no hello came within 100ms"})
	if _, closed := c.next(); !closed {
		t.Fatal("a silent peer's connection stayed open")
	}
}
