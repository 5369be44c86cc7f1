package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
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
// says first how to detach without ending the row.
func (s *Session) Attach(id string, tty *os.File) int {
	if !term.IsTerminal(int(tty.Fd())) {
		s.out("FAILED: sotd attach needs a terminal on its standard input; nothing was attached (sotd rows screen %s prints the row's screen)", id)
		return ExitFailed
	}
	var list wire.WorkspaceList
	if err := s.CallDaemon(wire.OpWorkspaceList, struct{}{}, &list); err != nil {
		s.out("FAILED: %v; nothing was attached", err)
		return ExitFailed
	}
	var row *wire.Workspace
	for i := range list.Workspaces {
		if list.Workspaces[i].ID == id {
			row = &list.Workspaces[i]
		}
	}
	switch {
	case row == nil:
		s.out("FAILED: this box's daemon runs no row %s (sotd rows lists its rows); nothing was attached", id)
		return ExitFailed
	case row.Backend == "tmux":
		return s.attachTmux(id, tty)
	case row.ExitCode != nil:
		s.out("FAILED: row %s is %s, so there is nothing to type into; sotd rows screen %s shows its last screen", id, RowPhase(*row), id)
		return ExitFailed
	}
	return s.attachPTY(id, tty)
}

// attachTmux runs a tmux client on the row's session, on this terminal.
func (s *Session) attachTmux(id string, tty *os.File) int {
	bin, err := exec.LookPath("tmux")
	if err != nil {
		s.out("FAILED: row %s runs on tmux, but no tmux is on PATH (%v); nothing was attached", id, err)
		return ExitFailed
	}
	detach := tmuxDetach
	if os.Getenv("TMUX") != "" {
		// The outer tmux takes the first C-b; a second passes one through.
		detach = "C-b C-b d (this terminal is inside tmux too)"
	}
	s.out("attaching to row %s (tmux): press %s to detach; the row keeps running", id, detach)
	cmd := exec.Command(bin, "-S", rows.TmuxSocket(s.Home, s.Host), "attach-session", "-t", "="+id,
		";", "display-message", "-d", "4000", "sotd attach: "+detach+" detaches; the row keeps running")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	// tmux refuses to start inside a tmux it finds in $TMUX; this one is
	// another server, so nesting is what the person asked for.
	cmd.Env = withoutVar(os.Environ(), "TMUX")
	if err := cmd.Run(); err != nil {
		s.out("FAILED: tmux attach to row %s: %v", id, err)
		return ExitFailed
	}
	s.out("detached from row %s; it runs on (sotd attach %s goes back)", id, id)
	return ExitOK
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
// row does), so a terminal smaller than the row shows it wrapped.
func (s *Session) attachPTY(id string, tty *os.File) int {
	sock := s.Home.Socket(s.Host)
	ctx, cancel := context.WithTimeout(context.Background(), DaemonWait)
	c, err := wire.Dial(ctx, sock, wire.Hello{Role: wire.RoleCLI, Host: s.Host, OSUser: osUser(), Protocol: wire.Protocol})
	cancel()
	if err != nil {
		s.out("FAILED: %s; nothing was attached", daemonFailure(sock, err, ""))
		return ExitFailed
	}
	defer c.Close()

	s.out("attaching to row %s (pty): press Ctrl-] to detach; the row keeps running", id)
	old, err := term.MakeRaw(int(tty.Fd()))
	if err != nil {
		s.out("FAILED: the terminal cannot be put in raw mode (%v); nothing was attached", err)
		return ExitFailed
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
		s.out("detached from row %s; it runs on (sotd attach %s goes back)", id, id)
		return ExitOK
	default:
	}
	if err != nil {
		s.out("FAILED: attach to row %s: %s", id, daemonFailure(sock, err, ""))
		return ExitFailed
	}
	s.out("row %s ended the attachment: %s (sotd rows shows how it ended)", id, answer.Why)
	return ExitOK
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
