package client

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
)

// A session keyed by an agent with AsAgent finds the handle joined under that
// agent, as a process below the agent does, and no other agent's.
func TestAsAgentKeysTheSlot(t *testing.T) {
	t.Setenv(home.EnvName, "")
	h, err := home.At(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	as := func(pid int) *Session {
		s := &Session{Home: h, Host: "box", Cwd: t.TempDir(), Stdout: &out, Stderr: &out, Now: time.Now}
		s.AsAgent(pid, "12345")
		return s
	}
	if code := as(4242).Join(JoinArgs{Name: "alice"}); code != ExitOK {
		t.Fatalf("join: %d %s", code, out.String())
	}
	s := as(4242)
	if me, err := s.Me(); me != "alice" || err != nil {
		t.Errorf("the same agent's session is %q (%v), want alice", me, err)
	}
	if pid, start, ok := s.Agent(); pid != 4242 || start != "12345" || !ok {
		t.Errorf("Agent() = %d %q %v", pid, start, ok)
	}
	if me, err := as(4243).Me(); !errors.Is(err, ErrNotJoined) {
		t.Errorf("another agent's session is %q (%v), want not joined", me, err)
	}
}
