package hooks

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// ExitRewake is the one exit a rewake waiter wakes its session with: Claude
// Code wakes the model when an asyncRewake hook exits 2 and gives it what the
// hook printed. Only Wait returns it, and only for mail (see Wait).
const ExitRewake = 2

// The rewake waiter's times.
const (
	// WaitFor is one waiter's life. Claude Code kills a background hook at its
	// timeout (waitTimeout, set above this), so a waiter ends itself first and
	// re-arms the next one (see Wait).
	WaitFor = time.Hour
	// waitTimeout is the timeout, in seconds, sotd hooks install gives the
	// waiter's hooks: WaitFor and a margin for a slow start.
	waitTimeout = int((WaitFor + 5*time.Minute) / time.Second)
	// waitPoll is how often the waiter looks at the inbox file's size and
	// modification time, and whether it is still this session's waiter.
	waitPoll = 250 * time.Millisecond
)

// waitRecheck is how often a waiter reads again who this session is, so a
// session that left stops waiting even when no mail comes, and whether its
// batch is due a reminder. A variable so the package's tests, which wait for
// a recheck, need not wait five seconds for each (wait_test.go).
var waitRecheck = 5 * time.Second

// EnvWaitFor overrides WaitFor with a Go duration ("3s"), for tests of the
// re-arm that cannot wait an hour.
const EnvWaitFor = "SOTD_HOOK_WAIT_FOR"

// ArmName is the file whose change re-arms every Claude Code session's waiter:
// sotd hooks install puts a FileChanged hook on it, in the comm home's state/.
const ArmName = "sotd-rewake.arm"

// ArmPath is the re-arm file of the comm home h.
func ArmPath(h home.Home) string { return filepath.Join(h.StateDir(), ArmName) }

// watchAnswer is a SessionStart hook's answer that adds absolute paths to
// those Claude Code's FileChanged hooks watch.
type watchAnswer struct {
	HookSpecificOutput struct {
		HookEventName string   `json:"hookEventName"`
		WatchPaths    []string `json:"watchPaths"`
	} `json:"hookSpecificOutput"`
}

// Watch is `sotd hook watch`, the plugin's SessionStart hook (see
// pluginSpecs): it has Claude Code watch the re-arm file of this session's
// comm home, which the plugin's FileChanged matcher, the same on every box,
// cannot name. An install names the path in the matcher and needs no Watch.
func Watch(r Run) int {
	r.drain()
	if r.Session == nil {
		r.note("sotd hook watch: %v; the waiter will not re-arm", r.NoSession)
		return ExitFailed
	}
	var a watchAnswer
	a.HookSpecificOutput.HookEventName = "SessionStart"
	a.HookSpecificOutput.WatchPaths = []string{ArmPath(r.Session.Home)}
	r.answer(a)
	return ExitOK
}

// Wait is `sotd hook wait`, the doorbell of a plain Claude Code session, run
// as an asyncRewake hook at the session's start, at each turn end and when the
// re-arm file changes. It waits for this session's handle to have unread mail
// (the one unread rule) in a batch not yet announced, records the batch in the
// record the Stop hook keeps (state.announce), prints the notice
// (registry.WakeNotice) on stderr and exits 2: Claude Code then gives the
// notice to the model, at once when the session is idle. It never prints the
// mail itself.
//
// It waits without a daemon: it looks at the inbox file's size and
// modification time every waitPoll and counts only when they change. It exits
// 0, quietly, when the session acts as nobody (not joined, left, a subagent,
// its handle held by a row), when a newer waiter of the same session takes
// over (one waiter a session), when the agent above it has exited, and when
// its life (WaitFor) ends; then it first touches the re-arm file, whose
// FileChanged hook starts the next waiter without waking the model. A row's
// session is woken by the typed wake and gets no waiter. A fault of its own
// exits 1, never 2: a rewake hook that exits 2 on a fault would wake the model
// for nothing, and again each time it is started.
//
// One batch wakes once: a batch the Stop hook already held a turn end for is
// not announced again, nor one this or an earlier waiter announced. A batch
// still unread RepeatAfter after its notice gets one reminder.
func Wait(r Run) int {
	in, code, ok := r.waitable()
	if !ok {
		return code
	}
	agent, ok := r.agent()
	w := &waiter{Run: r, st: newState(r.Session.Home, in.SessionID), life: waitFor(), agent: agent, hasAgent: ok}
	return w.run()
}

// waitable reads the hook's input and says whether this session gets a
// waiter; when not, code is the hook's exit. A subagent and a row's session
// get none (the daemon types the notice into a row); a fault is exit 1.
func (r Run) waitable() (in input, code int, ok bool) {
	in, err := r.read()
	switch {
	case err != nil:
		r.note("sotd hook wait: %v; not waiting", err)
		return in, ExitFailed, false
	case in.AgentID != "":
		return in, ExitOK, false
	case r.Session == nil:
		r.note("sotd hook wait: %v; not waiting", r.NoSession)
		return in, ExitFailed, false
	case r.Session.Row != "":
		return in, ExitOK, false
	}
	return in, ExitOK, true
}

// waitFor is WaitFor, or $SOTD_HOOK_WAIT_FOR when it is a positive duration.
func waitFor() time.Duration {
	if d, err := time.ParseDuration(os.Getenv(EnvWaitFor)); err == nil && d > 0 {
		return d
	}
	return WaitFor
}

// waiter is one run of Wait, or of a Codex session's waiter (WaitCodex).
type waiter struct {
	Run
	st   state
	life time.Duration // 0: until the agent exits or the session leaves
	// agent is the agent process whose exit ends the waiter, when hasAgent.
	agent    ancestry.Proc
	hasAgent bool
	// ring tells the session of its mail and is the waiter's exit code; nil
	// is Claude Code's rewake (see wake).
	ring func() int
	// gather is how long the inbox must hold still before a change is
	// counted, so lines sent together make one batch (see codexGather).
	gather time.Duration
	handle string
	token  string // this waiter's mark in the session's wait file
}

func (w *waiter) run() int {
	me, _, err := w.me()
	if err != nil {
		w.note("sotd hook wait: who this session is could not be read: %v; not waiting", err)
		return ExitFailed
	}
	if me == "" {
		return ExitOK
	}
	w.handle = me
	// Without a daemon the session stays live ten minutes from its last
	// comm command, as before: nothing to say.
	_ = w.Session.KeepLive(me)
	inbox, err := w.Session.Home.HandlePath(home.Inbox, me)
	if err != nil {
		w.note("sotd hook wait: %v; not waiting", err)
		return ExitFailed
	}
	w.token = strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := w.st.write(w.st.waitFile(), []byte(w.token+"\n")); err != nil {
		w.note("sotd hook wait: %v; not waiting", err)
		return ExitFailed
	}
	end := time.Now().Add(w.life)
	var seen, changed home.Stamp
	var changedAt time.Time
	counted, checked := false, time.Now()
	for {
		now := home.StampOf(inbox)
		if !now.Same(changed) {
			changed, changedAt = now, time.Now()
		}
		if (!counted || !now.Same(seen)) && time.Since(changedAt) >= w.gather {
			code, done := w.look()
			if done {
				return code
			}
			seen, counted = now, code == ExitOK // a busy inbox is counted again
		}
		switch {
		case !w.current():
			return ExitOK
		case w.hasAgent && ancestry.Still(w.agent.PID, w.agent.Start) == ancestry.Gone:
			return ExitOK
		case w.life > 0 && time.Now().After(end):
			// Before the recheck, which may be due at every look: a reminder
			// due now is the next waiter's.
			w.rearm()
			return ExitOK
		case time.Since(checked) >= waitRecheck:
			checked = time.Now()
			if me, _, err := w.me(); err != nil || me != w.handle {
				return ExitOK
			}
			if code, done := w.remind(); done {
				return code
			}
		}
		time.Sleep(waitPoll)
	}
}

// look counts the unread mail once; done says the waiter ends with code. A
// busy inbox is not done and not counted (code ExitFailed): the next look
// counts it.
func (w *waiter) look() (code int, done bool) {
	if me, _, err := w.me(); err != nil || me != w.handle {
		return ExitOK, true
	}
	n, last, err := w.unread()
	switch {
	case errors.Is(err, filer.ErrBusy):
		return ExitFailed, false
	case err != nil:
		w.note("sotd hook wait: the unread count for @%s failed: %v; not waiting", w.handle, err)
		return ExitFailed, true
	case n == 0:
		return ExitOK, false
	}
	fresh, err := w.st.announce(last)
	if err != nil {
		// Unrecorded, the batch would wake every later waiter too.
		w.note("sotd hook wait: the mail tick for @%s was not written: %v; not waking", w.handle, err)
		return ExitFailed, true
	}
	if !fresh {
		return ExitOK, false
	}
	return w.wake(), true
}

// remind gives a batch still unread RepeatAfter after its notice its one
// reminder.
func (w *waiter) remind() (code int, done bool) {
	n, last, err := w.unread()
	if err != nil || n == 0 || last != w.st.blockedOn() {
		return ExitOK, false
	}
	at, ok := w.st.announcedAt()
	// The tick's modification time is the file system's clock, so it is aged
	// against the wall clock.
	if !ok || time.Since(at) < RepeatAfter || w.st.reminded() == last {
		return ExitOK, false
	}
	if err := w.st.remind(last); err != nil {
		w.note("sotd hook wait: the reminder for @%s was not recorded: %v; not reminding", w.handle, err)
		return ExitFailed, true
	}
	return w.wake(), true
}

// RepeatAfter is when a batch still unread gets its one more notice, as the
// row wake gives it (wake.RepeatAfter).
const RepeatAfter = 10 * time.Minute

func (w *waiter) unread() (int, filer.Cursor, error) {
	u, err := filer.New(w.Session.Home).LastUnread(w.handle)
	return u.N, u.Last, err
}

// wake tells the session of its mail: by ring, or by printing the notice for
// Claude Code to give the model.
func (w *waiter) wake() int {
	if w.ring != nil {
		return w.ring()
	}
	fmt.Fprintln(w.Err, registry.WakeNotice)
	return ExitRewake
}

// current reports whether this is still the session's waiter: a newer one
// writes its own token, and this one gives way.
func (w *waiter) current() bool {
	b, err := os.ReadFile(w.st.waitFile())
	return err != nil || string(b) == w.token+"\n"
}

// rearm touches the re-arm file so Claude Code starts the next waiter. A
// fault is only told: the next turn end starts one too.
func (w *waiter) rearm() {
	if err := home.WriteAtomic(ArmPath(w.Session.Home), []byte(time.Now().UTC().Format(time.RFC3339Nano)+"\n")); err != nil {
		w.note("sotd hook wait: the re-arm file was not touched: %v; the next turn end starts a waiter", err)
	}
}
