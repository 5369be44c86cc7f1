package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/registry"
)

// WaitCodex is `sotd hook wait --codex`, the doorbell of a plain Codex session
// (one a person started as `codex --no-daemon` and joined), run by Codex's
// SessionStart and Stop hooks. Codex runs a hook to its end before it goes on,
// and has no background hook to wake a session, so this starts the waiter
// detached and returns at once. The waiter (WaitCodexDetached) waits as Claude
// Code's does (see Wait) and rings by `codex queue --thread <session> --message
// <notice>`, which an idle Codex session takes as its next prompt, and a busy
// one after its turn, leaving a draft in the composer as it is. It ends when
// the session's codex exits, when the session leaves, when a newer waiter of the
// same session takes over, or after it rang: the turn the notice starts ends in
// a Stop hook, which starts the next waiter.
func WaitCodex(r Run) int {
	in, code, ok := r.waitable()
	if !ok || r.onSharedServer("wait", false) {
		return code
	}
	me, _, err := r.me()
	if err != nil || me == "" {
		return ExitOK // not joined (a later Stop starts the waiter), or told by the Stop hook
	}
	pid, start, ok := r.Session.Agent()
	if !ok || in.SessionID == "" {
		r.note("sotd hook wait: no Codex session above this hook to wait for (agent pid %d, session %q); not waiting", pid, in.SessionID)
		return ExitFailed
	}
	program := "codex"
	if p, ok := r.agent(); ok && ancestry.AgentOf(p.Argv) == ancestry.Codex && p.Exe != "" {
		program = p.Exe
	}
	if err := r.startWaiter(codexWaiter{SessionID: in.SessionID, AgentPID: pid, AgentStart: start, Program: program}); err != nil {
		r.note("sotd hook wait: the waiter for @%s did not start: %v; the next turn end starts one", me, err)
		return ExitFailed
	}
	return ExitOK
}

// codexWaiter is what WaitCodex gives the detached waiter on its stdin: the
// Codex session (its thread), the agent process whose identity and life it
// takes, and the codex program that queues the notice.
type codexWaiter struct {
	SessionID  string `json:"session_id"`
	AgentPID   int    `json:"agent_pid"`
	AgentStart string `json:"agent_start"`
	Program    string `json:"program"`
}

// startWaiter starts `sotd hook wait --codex --detached` in a session of its
// own, cw on its stdin and its notes in the state folder's
// codex-wait-<session>.log, and does not wait for it.
func (r Run) startWaiter(cw codexWaiter) error {
	self, err := selfProgram()
	if err != nil {
		return err
	}
	st := newState(r.Session.Home, cw.SessionID)
	if err := st.write(st.waitLog(), nil); err != nil {
		return err
	}
	log, err := os.OpenFile(st.waitLog(), os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	in, err := json.Marshal(cw)
	if err != nil {
		return err
	}
	// The input fits a pipe's buffer whole, so it is written before the start
	// and the hook need not stay for the waiter to read it.
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pr.Close()
	if _, err := pw.Write(in); err != nil {
		pw.Close()
		return err
	}
	pw.Close()
	cmd := exec.Command(self, "hook", "wait", "--codex", "--detached")
	cmd.Stdin, cmd.Stderr = pr, log
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// selfProgram is the sotd this hook runs as: the program the agent started
// (by its name on PATH, or its path), which is the one the agent trusts, else
// this executable.
func selfProgram() (string, error) {
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		return p, nil
	}
	return os.Executable()
}

// waitLog is where a Codex session's detached waiter writes its notes.
func (st state) waitLog() string { return filepath.Join(st.dir, "codex-wait-"+st.key+".log") }

// WaitCodexDetached is the detached waiter WaitCodex starts: this session's
// identity is the agent's given on stdin, as its own ancestry no longer
// reaches the agent.
func WaitCodexDetached(r Run) int {
	var cw codexWaiter
	if err := json.NewDecoder(r.In).Decode(&cw); err != nil || cw.AgentPID <= 0 || cw.SessionID == "" {
		r.note("sotd hook wait --detached: the waiter's input is not what sotd hook wait --codex gives (%v); not waiting", err)
		return ExitFailed
	}
	if r.Session == nil {
		r.note("sotd hook wait: %v; not waiting", r.NoSession)
		return ExitFailed
	}
	r.Session.AsAgent(cw.AgentPID, cw.AgentStart)
	w := &waiter{Run: r, st: newState(r.Session.Home, cw.SessionID),
		agent: ancestry.Proc{PID: cw.AgentPID, Start: cw.AgentStart}, hasAgent: true}
	w.ring = func() int { return w.queue(cw) }
	return w.run()
}

// queueWait bounds `codex queue`, which writes one row into Codex's queue.
const queueWait = 30 * time.Second

// queue gives the notice to the Codex session as a queued message.
func (w *waiter) queue(cw codexWaiter) int {
	ctx, cancel := context.WithTimeout(context.Background(), queueWait)
	defer cancel()
	out, err := exec.CommandContext(ctx, cw.Program, "queue", "--thread", cw.SessionID, "--message", registry.WakeNotice).CombinedOutput()
	if err != nil {
		w.note("sotd hook wait: %s queue --thread %s failed: %v: %s; the mail for @%s waits for the next turn end", cw.Program, cw.SessionID, err, strings.TrimSpace(string(out)), w.handle)
		return ExitFailed
	}
	fmt.Fprintf(w.Err, "%s rang @%s's Codex session %s\n", time.Now().UTC().Format(time.RFC3339), w.handle, cw.SessionID)
	return ExitOK
}
