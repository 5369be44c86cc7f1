package hooks

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// A plain Codex session's detached waiter rings once per new batch by `codex
// queue --thread <session> --message <notice>`, never with the mail itself, and
// shares the Stop hook's record of the batch announced; it ends quietly, with
// no ring, when its codex exits.
func TestCodexWaiterQueuesTheNotice(t *testing.T) {
	s, agent, in, rung := codexWaiterSetup(t)

	w := startWaiter(t, WaitCodexDetached, Run{In: strings.NewReader(string(in)), Session: s})
	mail(t, s, "bob", "alice", "the body stays in the inbox")
	if code := w.ended(t, 10*time.Second, "the ring"); code != ExitOK {
		t.Fatalf("the waiter exited %d with %q, want 0 after it rang", code, w.stderr())
	}
	want := "queue\n--thread\ns-1\n--message\n" + registry.WakeNotice + "\n"
	if got := rung(); got != want {
		t.Fatalf("codex was run with %q, want %q", got, want)
	}
	if out, _ := hook(t, s, Stop, stopInput); out != "" {
		t.Fatalf("the Stop hook answered %q for the batch the waiter announced, want the turn to end", out)
	}

	w = startWaiter(t, WaitCodexDetached, Run{In: strings.NewReader(string(in)), Session: s})
	agent.Process.Kill()
	agent.Wait()
	if code := w.ended(t, 10*time.Second, "the waiter's end after its codex"); code != ExitOK || w.stderr() != "" {
		t.Fatalf("the waiter exited %d with %q after its codex, want 0 and nothing said", code, w.stderr())
	}
	if got := rung(); got != want {
		t.Errorf("codex was run again: %q", got)
	}
}

// The detached waiter refuses an input that is not what sotd hook wait --codex
// gives, with exit 1.
func TestCodexWaiterInput(t *testing.T) {
	s := joined(t, newClock())
	for _, in := range []string{"not json", `{"session_id":"s-1"}`, `{"agent_pid":1}`} {
		if code := startWaiter(t, WaitCodexDetached, Run{In: strings.NewReader(in), Session: s}).ended(t, 10*time.Second, "the refusal"); code != ExitFailed {
			t.Errorf("input %s: exit %d, want %d", in, code, ExitFailed)
		}
	}
}

// Two lines sent a moment apart are one batch to a Codex waiter: it rings
// once, and a waiter started after it (as a hook in the notice's turn starts
// one) does not ring again for the second line.
func TestCodexWaiterGathersLinesSentTogether(t *testing.T) {
	s, agent, in, rung := codexWaiterSetup(t)
	rings := func() int { return strings.Count(rung(), "queue\n") }

	w := startWaiter(t, WaitCodexDetached, Run{In: strings.NewReader(string(in)), Session: s})
	mail(t, s, "bob", "alice", "one")
	// Within codexGather, as a second `sotd send` right after the first.
	time.Sleep(codexGather / 3)
	mail(t, s, "bob", "alice", "two")
	if code := w.ended(t, 10*time.Second, "the ring"); code != ExitOK {
		t.Fatalf("the waiter exited %d with %q, want 0 after it rang", code, w.stderr())
	}
	w = startWaiter(t, WaitCodexDetached, Run{In: strings.NewReader(string(in)), Session: s})
	// Its first look comes codexGather after its start; a ring would follow
	// at once.
	for end := time.Now().Add(2 * codexGather); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if n := rings(); n != 1 {
			t.Fatalf("codex was rung %d times for two lines sent together, want once", n)
		}
	}
	agent.Process.Kill()
	agent.Wait()
	if code := w.ended(t, 10*time.Second, "the waiter's end after its codex"); code != ExitOK {
		t.Fatalf("the waiter exited %d with %q after its codex, want 0", code, w.stderr())
	}
	if n := rings(); n != 1 {
		t.Fatalf("codex was rung %d times for two lines sent together, want once", n)
	}
}

// codexWaiterSetup is a session joined as @alice, a helper agent for its
// codex, the detached waiter's input naming a fake codex that records its
// arguments, and what that codex was run with so far, one argument a line.
func codexWaiterSetup(t *testing.T) (*client.Session, *exec.Cmd, []byte, func() string) {
	s := joined(t, newClock())
	t.Setenv(home.EnvName, "alice")
	codex := filepath.Join(t.TempDir(), "codex")
	calls := codex + ".calls"
	if err := os.WriteFile(codex, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" >> \"$0.calls\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	agent, p := helperAgent(t)
	in, _ := json.Marshal(codexWaiter{SessionID: "s-1", AgentPID: p.PID, AgentStart: p.Start, Program: codex})
	return s, agent.Cmd, in, func() string { b, _ := os.ReadFile(calls); return string(b) }
}
