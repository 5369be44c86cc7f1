package hooks

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
)

// A waiter's tests wait for its rechecks (the leave, the reminder): a quarter
// second each, not five. Set before any test starts a waiter.
func init() { waitRecheck = 250 * time.Millisecond }

const waitInput = `{"session_id":"s-1","hook_event_name":"Stop"}`

// noAgent is the ancestry of a waiter with no agent above it to watch.
func noAgent() ([]ancestry.Proc, error) {
	return []ancestry.Proc{{PID: os.Getpid(), Argv: []string{"sotd", "hook", "wait"}}}, nil
}

// waiting is one Wait started in the background.
type waiting struct {
	done chan struct{}
	code int
	mu   sync.Mutex
	errs bytes.Buffer
}

func (w *waiting) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.errs.Write(p)
}

func (w *waiting) stderr() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.errs.String()
}

func startWait(t *testing.T, s Run) *waiting {
	t.Helper()
	return startWaiter(t, Wait, s)
}

// startWaiter starts the waiter fn (Wait, WaitCodexDetached) in the background.
func startWaiter(t *testing.T, fn func(Run) int, s Run) *waiting {
	t.Helper()
	w := &waiting{done: make(chan struct{})}
	var out bytes.Buffer
	s.Out, s.Err = &out, w
	go func() {
		defer close(w.done)
		w.code = fn(s)
		if out.Len() > 0 {
			t.Errorf("the waiter wrote %q on stdout, want nothing", out.String())
		}
	}()
	t.Cleanup(func() { <-w.done })
	return w
}

// ended waits for the waiter's exit and returns its code.
func (w *waiting) ended(t *testing.T, within time.Duration, what string) int {
	t.Helper()
	testutil.Eventually(t, within, what, func() bool {
		select {
		case <-w.done:
			return true
		default:
			return false
		}
	})
	return w.code
}

func (w *waiting) running() bool {
	select {
	case <-w.done:
		return false
	default:
		return true
	}
}

// The waiter wakes once per new batch, sharing the Stop hook's record: mail
// that is not unread wakes nothing, and the waiter that lived out its life
// re-arms; unread mail wakes with the notice and exit 2; the same batch wakes no
// later waiter and holds no turn end; new mail wakes again.
func TestWaitOncePerBatch(t *testing.T) {
	t.Setenv(EnvWaitFor, "1s")
	s := joined(t, newClock())
	run := func() Run { return Run{In: strings.NewReader(waitInput), Session: s, Ancestry: noAgent} }
	quiet := func(w *waiting, what string) {
		t.Helper()
		if code := w.ended(t, 30*time.Second, what); code != ExitOK || w.stderr() != "" {
			t.Fatalf("%s: the waiter exited %d with %q, want 0 and nothing said", what, code, w.stderr())
		}
	}
	woke := func(w *waiting, what string) {
		t.Helper()
		if code := w.ended(t, 10*time.Second, what); code != ExitRewake || w.stderr() != registry.WakeNotice+"\n" {
			t.Fatalf("%s: the waiter exited %d with %q, want %d with the notice", what, code, w.stderr(), ExitRewake)
		}
	}

	mail(t, s, "carol", "", "a broadcast is not unread")
	mail(t, s, "alice", "alice", "nor a note to self")
	quiet(startWait(t, run()), "nothing unread")
	if _, err := os.Stat(ArmPath(s.Home)); err != nil {
		t.Fatalf("the waiter that lived out its life did not re-arm: %v", err)
	}

	w := startWait(t, run())
	mail(t, s, "bob", "alice", "hi")
	woke(w, "bob's line")

	quiet(startWait(t, run()), "the batch already announced")
	if out, _ := hook(t, s, Stop, stopInput); out != "" {
		t.Fatalf("the Stop hook answered %q for the batch the waiter announced, want the turn to end", out)
	}

	w = startWait(t, run())
	mail(t, s, "dave", "alice", "there?")
	woke(w, "dave's line, a new batch")
}

// A batch the Stop hook held a turn end for wakes no waiter.
func TestWaitAfterStopHold(t *testing.T) {
	t.Setenv(EnvWaitFor, "1s")
	s := joined(t, newClock())
	mail(t, s, "bob", "alice", "hi")
	if out, _ := hook(t, s, Stop, stopInput); !strings.Contains(out, "block") {
		t.Fatalf("the Stop hook answered %q, want a block", out)
	}
	w := startWait(t, Run{In: strings.NewReader(waitInput), Session: s, Ancestry: noAgent})
	if code := w.ended(t, 30*time.Second, "the waiter's end of life"); code != ExitOK || w.stderr() != "" {
		t.Fatalf("the waiter exited %d with %q after the Stop hook held the batch, want 0", code, w.stderr())
	}
}

// A waiter ends quietly, with no wake, when the session leaves or a newer
// waiter of the session takes over, and it never exits 2 on a fault of its
// own or where it has no business.
func TestWaitEnds(t *testing.T) {
	s := joined(t, newClock())
	run := func(in string) Run { return Run{In: strings.NewReader(in), Session: s, Ancestry: noAgent} }

	first := startWait(t, run(waitInput))
	testutil.Eventually(t, 10*time.Second, "the first waiter's mark", func() bool {
		_, err := os.Stat(newState(s.Home, "s-1").waitFile())
		return err == nil
	})
	second := startWait(t, run(waitInput))
	if code := first.ended(t, 10*time.Second, "the first waiter giving way"); code != ExitOK {
		t.Fatalf("the first waiter exited %d, want 0", code)
	}
	other := startWait(t, run(`{"session_id":"s-2"}`))
	if code := s.Leave(""); code != 0 {
		t.Fatalf("leave: %d", code)
	}
	for _, w := range []*waiting{second, other} {
		if code := w.ended(t, 10*time.Second, "a waiter's end after the leave"); code != ExitOK || w.stderr() != "" {
			t.Fatalf("a waiter exited %d with %q after the leave, want 0", code, w.stderr())
		}
	}

	for _, tc := range []struct {
		name, in string
		row      string
		want     int
	}{
		{"not the agent's JSON", "not json", "", ExitFailed},
		{"a subagent", `{"session_id":"s-1","agent_id":"a-1"}`, "", ExitOK},
		{"a row's session", waitInput, "row-1", ExitOK},
		{"not joined", waitInput, "", ExitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(tc.in)
			sess := *s
			sess.Row = tc.row
			r.Session = &sess
			if code := startWait(t, r).ended(t, 10*time.Second, "the waiter's exit"); code != tc.want {
				t.Fatalf("exit %d, want %d", code, tc.want)
			}
		})
	}
	if code := Wait(Run{In: strings.NewReader(waitInput), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, NoSession: os.ErrNotExist}); code != ExitFailed {
		t.Fatalf("with no comm home the waiter exited %d, want %d", code, ExitFailed)
	}
}

// A batch still unread RepeatAfter after its notice gets one reminder, and
// only one.
func TestWaitRemindsOnce(t *testing.T) {
	t.Setenv(EnvWaitFor, (4 * waitRecheck).String()) // three rechecks and more for the second waiter
	s := joined(t, newClock())
	mail(t, s, "bob", "alice", "hi")
	if out, _ := hook(t, s, Stop, stopInput); !strings.Contains(out, "block") {
		t.Fatalf("the Stop hook answered %q, want a block", out)
	}
	tick := newState(s.Home, "s-1").mailTick()
	then := time.Now().Add(-RepeatAfter - time.Minute) // the notice, eleven minutes ago
	if err := os.Chtimes(tick, then, then); err != nil {
		t.Fatal(err)
	}
	run := func() Run { return Run{In: strings.NewReader(waitInput), Session: s, Ancestry: noAgent} }
	w := startWait(t, run())
	if code := w.ended(t, 30*time.Second, "the reminder"); code != ExitRewake || w.stderr() != registry.WakeNotice+"\n" {
		t.Fatalf("the waiter exited %d with %q, want the reminder", code, w.stderr())
	}
	w = startWait(t, run())
	if code := w.ended(t, 30*time.Second, "the waiter's end of life"); code != ExitOK || w.stderr() != "" {
		t.Fatalf("the waiter exited %d with %q, want no second reminder", code, w.stderr())
	}
}

// A waiter ends quietly when the agent that ran it exits: Claude Code may
// leave a background hook running behind it.
func TestWaitEndsWithItsAgent(t *testing.T) {
	t.Setenv(EnvWaitFor, "20s") // a bound for a waiter that misses its agent's end
	s := joined(t, newClock())
	agent, p := helperAgent(t)
	chain := func() ([]ancestry.Proc, error) {
		return []ancestry.Proc{
			{PID: os.Getpid(), PPID: p.PID, Argv: []string{"sotd", "hook", "wait"}},
			{PID: p.PID, PPID: 1, Start: p.Start, Argv: []string{"claude"}},
		}, nil
	}
	w := startWait(t, Run{In: strings.NewReader(waitInput), Session: s, Ancestry: chain})
	testutil.Eventually(t, 10*time.Second, "the waiter's mark", func() bool {
		_, err := os.Stat(newState(s.Home, "s-1").waitFile())
		return err == nil
	})
	if !w.running() {
		t.Fatalf("the waiter exited %d before its agent did", w.code)
	}
	agent.Cmd.Process.Kill()
	agent.Cmd.Wait()
	if code := w.ended(t, 10*time.Second, "the waiter's end after its agent's"); code != ExitOK || w.stderr() != "" {
		t.Fatalf("the waiter exited %d with %q after its agent, want 0", code, w.stderr())
	}
}

// helperAgent starts a process that plays a waiter's agent, to be killed by
// the test, and returns it with its process record.
func helperAgent(t *testing.T) (*testutil.Helper, ancestry.Proc) {
	t.Helper()
	agent := testutil.StartHelper(t, helperEnv+"=hold", "HOOKS_LOCK="+filepath.Join(t.TempDir(), "lock"))
	tab, err := ancestry.OSTable()
	if err != nil {
		t.Fatal(err)
	}
	p, err := tab.Proc(agent.Cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return agent, p
}
