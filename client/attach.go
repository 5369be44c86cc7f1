package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/wire"
)

// DetachKey ends an attachment to a PTY row and leaves the row running:
// Ctrl-], telnet's escape, which no agent's prompt uses.
const DetachKey = 0x1d

// tmuxDetach is the tmux client's own detach: the rows' server reads no
// configuration, so its prefix is tmux's default, C-b.
const tmuxDetach = "C-b d"

// Attach puts the terminal tty (this process's stdin, in raw mode while
// attached) on row id: a tmux row through a tmux client on the rows' private
// socket, a PTY row through the daemon, which owns the PTY and relays it. It
// says first how to detach without ending the row, and at the end how the
// attachment ended.
func (s *Session) Attach(id string, tty *os.File) int {
	code, exited := s.attach(id, tty)
	switch {
	case exited != nil && code != ExitOK:
		s.out("FAILED: row %s is stopped (%s), so there is nothing to attach to; sotd rows screen %s shows its last screen", id, exitSentence(*exited), id)
	case exited != nil:
		s.out("row %s stopped: %s; sotd rows screen %s shows its last screen", id, exitSentence(*exited), id)
	}
	return code
}

// attach is Attach but for the line that says the row's program exited:
// exited is its exit status (-1 for a signal) once the row is Stopped, which
// the caller says in its own words; nil while the row runs on or when how it
// ended cannot be read. A row Stopped before anything was attached gives
// ExitFailed with its status.
func (s *Session) attach(id string, tty *os.File) (code int, exited *int) {
	if !isTerminal(tty) {
		s.out("FAILED: sotd attach needs a terminal on its standard input; nothing was attached (sotd rows screen %s prints the row's screen)", id)
		return ExitFailed, nil
	}
	row, err := s.row(id)
	switch {
	case err != nil:
		s.out("FAILED: %v; nothing was attached", err)
		return ExitFailed, nil
	case row == nil:
		s.out("FAILED: this box's daemon runs no row %s (sotd rows lists its rows); nothing was attached", id)
		return ExitFailed, nil
	case row.ExitCode != nil:
		return ExitFailed, row.ExitCode
	}
	var why string
	if row.Backend == "tmux" {
		code, why = s.attachTmux(id, tty)
	} else {
		code, why = s.attachPTY(id, tty)
	}
	if code != ExitOK {
		return code, nil
	}
	return s.attachEnded(id, why)
}

// attachEnded reads how an attachment ended (why is "" for a detach) and says
// so, but for a program's exit, which it returns. The PTY's output can end a
// moment before the daemon has reaped the program, so an end for another
// reason than a detach waits, briefly, to read the exit status.
func (s *Session) attachEnded(id, why string) (code int, exited *int) {
	wait := time.Duration(0)
	if why != "" {
		wait = reapWait
	}
	row, err := s.rowSettled(id, wait)
	switch {
	case err != nil:
		s.out("FAILED: the attachment to row %s ended and the row cannot be read: %v", id, err)
		return ExitFailed, nil
	case row == nil:
		s.out("row %s was removed while this terminal was on it (sotd rows lists the rows)", id)
		return ExitFailed, nil
	case row.ExitCode != nil:
		return ExitOK, row.ExitCode
	case why == "":
		s.out("detached from row %s; it runs on (sotd attach %s goes back)", id, id)
	default:
		s.out("row %s ended the attachment: %s; it runs on (sotd attach %s goes back)", id, why, id)
	}
	return ExitOK, nil
}

// reapWait bounds how long an attachment that ended with its row's output
// waits for the row to read as Stopped.
const reapWait = 5 * time.Second

// row is row id as workspace.list shows it, nil when the daemon runs none.
func (s *Session) row(id string) (*wire.Workspace, error) {
	var list wire.WorkspaceList
	if err := s.CallDaemon(wire.OpWorkspaceList, struct{}{}, &list); err != nil {
		return nil, err
	}
	for i := range list.Workspaces {
		if list.Workspaces[i].ID == id {
			return &list.Workspaces[i], nil
		}
	}
	return nil, nil
}

// rowSettled is row id once it reads as Stopped, or as it is after wait.
func (s *Session) rowSettled(id string, wait time.Duration) (*wire.Workspace, error) {
	deadline := time.Now().Add(wait)
	for {
		row, err := s.row(id)
		if err != nil || row == nil || row.ExitCode != nil || time.Now().After(deadline) {
			return row, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// exitSentence says how a row's program ended, from its exit status.
func exitSentence(code int) string {
	if code < 0 {
		return "its program was killed by a signal"
	}
	return fmt.Sprintf("its program exited with status %d", code)
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// attachTmux runs a tmux client on the row's session, on this terminal, and
// detaches it when the row's program exits: a dead pane stays (so its last
// screen is kept), and a person would otherwise be left looking at it. why is
// "" (tmux ends a client only by a detach).
func (s *Session) attachTmux(id string, tty *os.File) (code int, why string) {
	bin, err := exec.LookPath("tmux")
	if err != nil {
		s.out("FAILED: row %s runs on tmux, but no tmux is on PATH (%v); nothing was attached", id, err)
		return ExitFailed, ""
	}
	detach := tmuxDetach
	if os.Getenv("TMUX") != "" {
		// The outer tmux takes the first C-b; a second passes one through.
		detach = "C-b C-b d (this terminal is inside tmux too)"
	}
	s.out("attaching to row %s (tmux): press %s to detach; the row keeps running", id, detach)
	// The hook detaches every client when the pane dies; the if-shell, a pane
	// that died between the phase read above and this attach, before any hook.
	// Row ids are letters, digits, '-' and '_', so they need no quoting here.
	session, window := "="+id, "="+id+":"
	cmd := exec.Command(bin, "-S", rows.TmuxSocket(s.Home, s.Host),
		"set-hook", "-t", window, "pane-died", "detach-client -s "+session, ";",
		"attach-session", "-t", session, ";",
		"if-shell", "-F", "-t", window, "#{pane_dead}", "detach-client", ";",
		"display-message", "-d", "4000", "sotd attach: "+detach+" detaches; the row keeps running")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	// tmux refuses to start inside a tmux it finds in $TMUX; this one is
	// another server, so nesting is what the person asked for.
	cmd.Env = withoutVar(os.Environ(), "TMUX")
	if err := cmd.Run(); err != nil {
		s.out("FAILED: tmux attach to row %s: %v", id, err)
		return ExitFailed, ""
	}
	return ExitOK, ""
}

func withoutVar(env []string, k string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, k+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// attachPTY relays the row through the daemon: pty.attach streams what the
// row draws to the terminal, and what is typed goes back as pty.input, until
// the detach key or the row's program exits. The row keeps its size (as a tmux
// row does), so a terminal smaller than the row shows it wrapped. why is the
// daemon's reason when the relay ended without the detach key.
func (s *Session) attachPTY(id string, tty *os.File) (code int, why string) {
	sock := s.Home.Socket(s.Host)
	ctx, cancel := context.WithTimeout(context.Background(), DaemonWait)
	c, err := wire.Dial(ctx, sock, wire.Hello{Role: wire.RoleCLI, Host: s.Host, OSUser: osUser(), Protocol: wire.Protocol})
	cancel()
	if err != nil {
		s.out("FAILED: %s; nothing was attached", daemonFailure(sock, err, ""))
		return ExitFailed, ""
	}
	defer c.Close()

	s.out("attaching to row %s (pty): press Ctrl-] to detach; the row keeps running", id)
	old, err := term.MakeRaw(int(tty.Fd()))
	if err != nil {
		s.out("FAILED: the terminal cannot be put in raw mode (%v); nothing was attached", err)
		return ExitFailed, ""
	}
	var screen altScreen
	restore := func() {
		_ = term.Restore(int(tty.Fd()), old)
		screen.leave(tty)
	}

	detached := make(chan struct{})
	go func() {
		// Ends at the detach key, or with this process when the row ends first:
		// a read of a terminal cannot be interrupted.
		if s.typeInto(c, id, tty) {
			close(detached)
			c.Close()
		}
	}()
	var answer wire.PtyDetached
	err = c.Stream(context.Background(), wire.OpPtyAttach, wire.WorkspaceRef{WorkspaceID: id}, &answer, func(env wire.Envelope) {
		var o wire.PtyOutput
		if wire.DecodePayload(env.Payload, &o) != nil {
			return
		}
		b, err := base64.StdEncoding.DecodeString(o.DataB64)
		if err != nil {
			return
		}
		screen.see(b)
		_, _ = tty.Write(b)
	})
	restore()
	select {
	case <-detached:
		return ExitOK, ""
	default:
	}
	if err != nil {
		// A program that exits between the look at the row and this attach
		// gets the refusal of a Stopped row: that is its end, not a failure.
		if errors.As(err, new(*wire.Refusal)) {
			if row, rerr := s.rowSettled(id, reapWait); rerr == nil && row != nil && row.ExitCode != nil {
				return ExitOK, "its program exited"
			}
		}
		s.out("FAILED: attach to row %s: %s", id, daemonFailure(sock, err, ""))
		return ExitFailed, ""
	}
	return ExitOK, answer.Why
}

// typeInto sends what is typed on the terminal to the row, up to the detach
// key; it reports whether that key came (not the terminal or the daemon
// going).
func (s *Session) typeInto(c *wire.Client, id string, tty io.Reader) bool {
	buf := make([]byte, 4096)
	for {
		n, err := tty.Read(buf)
		if n > 0 {
			keys, _, found := bytes.Cut(buf[:n], []byte{DetachKey})
			if len(keys) > 0 {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				err := c.Call(ctx, wire.OpPtyInput, wire.PtyInput{WorkspaceID: id, DataB64: base64.StdEncoding.EncodeToString(keys)}, nil)
				cancel()
				if err != nil && !errors.As(err, new(*wire.Refusal)) {
					return false
				}
			}
			if found {
				return true
			}
		}
		if err != nil {
			return false
		}
	}
}

// altScreen follows whether the row's program put the terminal on its
// alternate screen, so a detach puts it back.
type altScreen struct{ on bool }

func (a *altScreen) see(b []byte) {
	on := bytes.LastIndex(b, []byte("\x1b[?1049h"))
	off := bytes.LastIndex(b, []byte("\x1b[?1049l"))
	switch {
	case on > off:
		a.on = true
	case off > on:
		a.on = false
	}
}

func (a *altScreen) leave(w io.Writer) {
	if a.on {
		_, _ = io.WriteString(w, "\x1b[?1049l")
	}
	_, _ = io.WriteString(w, "\x1b[m\x1b[?25h\r\n")
}
