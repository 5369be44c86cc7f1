package hooks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

const (
	stopInput   = `{"session_id":"s-1","hook_event_name":"Stop","stop_hook_active":false}`
	stopActive  = `{"session_id":"s-1","hook_event_name":"Stop","stop_hook_active":true}`
	stopOtherID = `{"session_id":"../s 2","hook_event_name":"Stop","stop_hook_active":false}`
)

// The once-per-batch rule, step by step: what holds a turn end, what the tick
// records, and what lets the turn end and stamps it.
func TestStopOncePerBatch(t *testing.T) {
	c := newClock()
	s := joined(t, c)
	tick := func() string {
		b, _ := os.ReadFile(newState(s.Home, "s-1").mailTick())
		return strings.TrimSpace(string(b))
	}
	type step struct {
		name   string
		before func()
		input  string
		block  string // the unread count a block names; "" lets the turn end
		tick   int    // the line count the mail tick names after the step; 0: none yet
	}
	steps := []step{
		{"no mail", nil, stopInput, "", 0},
		{"a broadcast and her own line are not unread", func() {
			mail(t, s, "carol", "", "to everyone")
		}, stopInput, "", 0},
		{"bob's line holds the turn end", func() { mail(t, s, "bob", "alice", "hi") }, stopInput, "1 unread message", 2},
		{"the same batch does not hold it again", nil, stopActive, "", 2},
		{"nor in a new turn", nil, stopInput, "", 2},
		{"a line that is not unread is no new batch", func() { mail(t, s, "alice", "alice", "a note to self") }, stopInput, "", 2},
		{"new mail holds again, inside the continuation too", func() { mail(t, s, "dave", "alice", "there?") }, stopActive, "2 unread messages", 4},
		{"another session keeps its own tick", nil, stopOtherID, "2 unread messages", 4},
		{"a cut-back that replaced the last line is a new batch", func() {
			p, _ := s.Home.HandlePath(home.Inbox, "alice")
			b, _ := os.ReadFile(p)
			lines := strings.SplitAfter(string(b), "\n")
			lines[3] = strings.Replace(lines[3], "there?", "still there?", 1)
			os.WriteFile(p, []byte(strings.Join(lines, "")), 0o600)
		}, stopInput, "2 unread messages", 4},
		{"read, nothing waits", func() {
			if code := s.Poll(false); code != 0 {
				t.Fatalf("poll %d", code)
			}
		}, stopInput, "", 4},
	}
	for _, st := range steps {
		if st.before != nil {
			st.before()
		}
		c.Add(time.Second)
		if code := s.Status(registry.VerbPrompt, registry.FloorUser, true, false); code != 0 {
			t.Fatalf("%s: prompt %d", st.name, code)
		}
		out, errs := hook(t, s, Stop, st.input)
		if errs != "" {
			t.Errorf("%s: stderr %q", st.name, errs)
		}
		e := entry(t, s)
		if st.block == "" {
			if out != "" {
				t.Errorf("%s: answered %q, want the turn to end", st.name, out)
			}
			if e.StopAt != "" || e.Floor != "" || !e.Done || e.StatusAt != stamp(c, 0) {
				t.Errorf("%s: a turn end that passes writes stop: stop_at %q floor %q done %v status_at %q", st.name, e.StopAt, e.Floor, e.Done, e.StatusAt)
			}
		} else {
			a := decode(t, out)
			if a["decision"] != "block" || !strings.Contains(a["reason"].(string), "@alice has "+st.block+": run comm-poll.sh") {
				t.Errorf("%s: answered %q, want a block naming %s", st.name, out, st.block)
			}
			if e.StopAt != stamp(c, 0) || e.Floor != registry.FloorUser {
				t.Errorf("%s: a held turn keeps its floor and the stop_at stamped as the hook started: stop_at %q floor %q", st.name, e.StopAt, e.Floor)
			}
		}
		if st.tick > 0 && !strings.HasPrefix(tick(), fmt.Sprintf("%d ", st.tick)) {
			t.Errorf("%s: mail tick %q, want line %d", st.name, tick(), st.tick)
		}
	}
	p, _ := s.Home.HandlePath(home.Inbox, "alice")
	b, _ := os.ReadFile(p)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if got, want := tick(), "4 "+filer.LineHash([]byte(lines[3])); got != want {
		t.Errorf("the tick is %q, want the last unread line's count and hash %q", got, want)
	}
	other := newState(s.Home, "../s 2").mailTick()
	if _, err := os.Stat(other); err != nil || filepath.Dir(other) != s.Home.StateDir() || filepath.Base(other) != "mail-..-s-2.tick" {
		t.Errorf("a session id is reduced to one file name in state/: %s, %v", other, err)
	}
}

// A busy inbox (another process holds its lock past the read wait) is told to the
// person and holds nothing: the turn ends and is stamped.
func TestStopBusyInboxDoesNotHold(t *testing.T) {
	t.Setenv(filer.EnvInboxReadWait, "0.2")
	c := newClock()
	s := joined(t, c)
	mail(t, s, "bob", "alice", "hi")
	s.Status(registry.VerbPrompt, registry.FloorUser, true, false)
	lock, _ := s.Home.HandlePath(home.InboxLock, "alice")
	holdLock(t, "hold", lock)

	start := time.Now()
	out, _ := hook(t, s, Stop, stopInput)
	took := time.Since(start)
	a := decode(t, out)
	if a["decision"] != nil || a["systemMessage"] != "sotd: the inbox for @alice was being written, so its mail was not counted (no turn is held for it); run comm-poll.sh (or sotd poll) to read it." {
		t.Fatalf("answered %q, want a message and no block", out)
	}
	if took < 200*time.Millisecond || took > 2*time.Second {
		t.Errorf("the hook took %v; it should wait out the 0.2 s read bound, no more", took)
	}
	if e := entry(t, s); e.Floor != "" || e.StopAt != "" || !e.Done {
		t.Errorf("a busy inbox lets the turn end: floor %q stop_at %q done %v", e.Floor, e.StopAt, e.Done)
	}
	if _, err := os.Stat(newState(s.Home, "s-1").mailTick()); err == nil {
		t.Error("a count that did not run recorded a batch")
	}
}

// A mail tick that cannot be written cannot prove the next turn end sees the
// same batch: outside a continuation the mail still holds, inside one it is only
// told, so no turn is held in a loop.
func TestStopUnwritableTick(t *testing.T) {
	c := newClock()
	s := joined(t, c)
	mail(t, s, "bob", "alice", "hi")
	if err := os.RemoveAll(s.Home.StateDir()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Home.StateDir(), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, input, want string
	}{
		{"a new turn end", stopInput, "decision"},
		{"inside a continuation", stopActive, "systemMessage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs := hook(t, s, Stop, tt.input)
			a := decode(t, out)
			if _, ok := a[tt.want]; !ok || len(a) != map[string]int{"decision": 2, "systemMessage": 1}[tt.want] {
				t.Fatalf("answered %q, want %s", out, tt.want)
			}
			if !strings.Contains(errs, "the mail tick for @alice was not written") {
				t.Errorf("stderr %q does not name the failed tick", errs)
			}
		})
	}
}

// A mail tick linked in from elsewhere is never read through: a link to a file
// that names the waiting batch would let the turn end past unread mail.
func TestStopReadsNoTickThroughASymlink(t *testing.T) {
	c := newClock()
	s := joined(t, c)
	mail(t, s, "bob", "alice", "hi")
	p, _ := s.Home.HandlePath(home.Inbox, "alice")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "tick")
	if err := os.WriteFile(elsewhere, []byte("1 "+filer.LineHash(bytes.TrimSuffix(b, []byte("\n")))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tick := newState(s.Home, "s-1").mailTick()
	if err := home.MkdirPrivate(filepath.Dir(tick)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, tick); err != nil {
		t.Skipf("cannot make a symlink here: %v", err)
	}
	s.Status(registry.VerbPrompt, registry.FloorUser, true, false)
	out, _ := hook(t, s, Stop, stopInput)
	if out == "" {
		t.Fatal("the turn ended past unread mail: the tick was read through the link")
	}
	if a := decode(t, out); a["decision"] != "block" {
		t.Fatalf("answered %q, want the mail to hold the turn", out)
	}
}
