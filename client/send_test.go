//go:build !windows

package client

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// A refusal's sentence can be another box's words. Printed after "FAILED ->
// @h:", it stays on that line: a newline in it cannot start a line of its own
// that reads "filed -> @x", and an escape sequence in it reaches the terminal
// as text.
func TestSendPrintsARemoteRefusalOnOneLine(t *testing.T) {
	s, out := joinedSession(t, "bob")
	const sentence = "no box holds @x\nfiled -> @x\n\x1b]0;pwned\x07\rfiled -> @y"
	refuse(t, s.Home.Socket("box"), sentence)
	if code := s.Send(SendArgs{To: "x", Text: "hi"}); code != ExitFailed {
		t.Errorf("send exit %d, want %d", code, ExitFailed)
	}
	want := `FAILED -> @x: no box holds @x\x0afiled -> @x\x0a\x1b]0;pwned\x07\x0dfiled -> @y` + "\n"
	if got := out.String(); got != want {
		t.Errorf("send printed\n%q\nwant\n%q", got, want)
	}
}

// refuse serves a daemon on sock that accepts one hello and refuses the
// request after it with sentence, in raw frames.
func refuse(t *testing.T, sock, sentence string) {
	t.Helper()
	answer(t, sock, map[string]string{"error": sentence, "code": "not_here"})
}

// answer serves a daemon on sock that answers one request on each of
// len(payloads) connections in turn, after its hello, with the next payload,
// whatever it asked, in raw frames.
func answer(t *testing.T, sock string, payloads ...any) {
	t.Helper()
	if err := home.MkdirPrivate(filepath.Dir(sock)); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		for _, payload := range payloads {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			answerOne(c, payload)
		}
	}()
}

// answerOne takes c's hello and answers its one request with payload.
func answerOne(c net.Conn, payload any) {
	defer c.Close()
	r := bufio.NewReader(c)
	if _, err := r.ReadBytes('\n'); err != nil {
		return
	}
	c.Write([]byte(`{"v":1,"id":1,"kind":"res","op":"hello","payload":{"host":"box","protocol":1}}` + "\n"))
	line, err := r.ReadBytes('\n')
	if err != nil {
		return
	}
	var req struct {
		ID uint64 `json:"id"`
		Op string `json:"op"`
	}
	json.Unmarshal(line, &req)
	res, _ := json.Marshal(map[string]any{"v": 1, "id": req.ID, "kind": "res", "op": req.Op, "payload": payload})
	c.Write(append(res, '\n'))
}

// A send stamps last_seen only when the stamp is older than touchFresh: a daemon
// that stamps a session each minute keeps every send free of the registry write,
// and a session no daemon stamps stays stamped within touchFresh of its sends.
func TestSendStampsOnlyAStaleLastSeen(t *testing.T) {
	h, err := home.At(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(home.EnvName, "")
	t.Setenv(home.EnvSocket, filepath.Join(t.TempDir(), "none.sock"))
	t0 := time.Now().UTC().Truncate(time.Second)
	now := t0
	var out bytes.Buffer
	s := &Session{Home: h, Host: "box", Cwd: t.TempDir(), Stdout: &out, Stderr: &out, Now: func() time.Time { return now }}
	if code := s.Join(JoinArgs{Name: "bob"}); code != ExitOK {
		t.Fatalf("join: %d %s", code, out.String())
	}
	for _, step := range []struct {
		after time.Duration
		want  time.Time
	}{
		{time.Minute, t0},              // a minute-old stamp is left alone
		{touchFresh - time.Second, t0}, // and one just under touchFresh
		{touchFresh + time.Second, t0.Add(touchFresh + time.Second)}, // an older one is stamped
	} {
		now = t0.Add(step.after)
		s.Send(SendArgs{To: "nobody", Text: "hi"})
		d, err := registry.Read(h)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Agents["bob"].LastSeen; got != registry.Stamp(step.want) {
			t.Fatalf("a send %s after the join left last_seen %s, want %s\n%s", step.after, got, registry.Stamp(step.want), out.String())
		}
	}
}
