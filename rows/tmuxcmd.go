package rows

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"
)

// maxSocketPath is the longest Unix socket path every OS takes (macOS's
// sun_path holds 104 bytes, the NUL included).
const maxSocketPath = 103

// tmuxServer runs tmux client commands against the private server.
type tmuxServer struct {
	bin    string
	socket string
}

// errNoServer is a tmux client finding no server behind the socket: no row
// was ever started, or the last one was removed and the server exited.
var errNoServer = errors.New("no tmux server")

// run executes tmux commands in one client call, so they run back to back in
// the server with nothing of another client's between them. It reads no user
// configuration, so a person's ~/.tmux.conf cannot change the rows' geometry
// or keys.
func (s tmuxServer) run(cmds ...[]string) ([]byte, error) { return s.runWith(nil, cmds...) }

// runWith is run with env added to the client's environment. tmux gives a new
// session the client's PATH, over any PATH given with -e, so a row's PATH goes
// to the client that makes it.
func (s tmuxServer) runWith(env []string, cmds ...[]string) ([]byte, error) {
	args := seq(cmds...)
	if len(s.socket) > maxSocketPath {
		return nil, fmt.Errorf("the tmux socket path %s is %d bytes, over the %d a Unix socket allows; set $SOT_COMM_HOME to a shorter folder", s.socket, len(s.socket), maxSocketPath)
	}
	// -u: without a UTF-8 locale (a service manager's bare environment) tmux
	// prints a tab in a format as '_', and the prompt glyph would not survive.
	cmd := exec.Command(s.bin, append([]string{"-u", "-f", "/dev/null", "-S", s.socket}, args...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err == nil {
		return out, nil
	}
	msg := strings.TrimSpace(stderr.String())
	switch {
	case strings.HasPrefix(msg, "no server running"), strings.HasPrefix(msg, "error connecting to"),
		// The server exits with its last session; a client that reached it as it
		// went says one of these.
		strings.HasPrefix(msg, "server exited unexpectedly"), strings.HasPrefix(msg, "lost server"),
		strings.HasPrefix(msg, "no current target"):
		return nil, errNoServer
	case strings.HasPrefix(msg, "can't find session"), strings.HasPrefix(msg, "no such session"), strings.HasPrefix(msg, "can't find pane"):
		return nil, ErrNoRow
	case strings.HasPrefix(msg, "duplicate session"):
		return nil, ErrRowExists
	case msg == "":
		return nil, fmt.Errorf("tmux %s: %w", args[0], err)
	}
	return nil, fmt.Errorf("tmux %s: %s", args[0], msg)
}

// seq is the tmux client's argv for cmds: the commands joined by ";", every
// word of theirs passed through tmuxWord, so no word (a row's argv, folder or
// environment, typed text) can end a command and start one of its own.
func seq(cmds ...[]string) []string {
	var out []string
	for i, c := range cmds {
		if i > 0 {
			out = append(out, ";")
		}
		for _, w := range c {
			out = append(out, tmuxWord(w))
		}
	}
	return out
}

// tmuxWord protects a trailing ';': tmux reads an argument that ends in ';'
// (";" alone included) as the end of a command and drops the ';', unless a
// backslash stands before it, in which case it drops the backslash instead.
// Nothing else in an argument is special to tmux's command layer.
func tmuxWord(s string) string {
	if strings.HasSuffix(s, ";") {
		return s[:len(s)-1] + `\;`
	}
	return s
}

// tmuxFormatText is s as literal text where tmux expands a format (new-session
// -c): "##" is one '#', so no "#{…}" or "#(command)" in a folder's name is
// expanded or run.
func tmuxFormatText(s string) string { return strings.ReplaceAll(s, "#", "##") }

// target names a row's pane: '=' asks for the session of exactly this name (not
// a prefix of a longer one), and the ':' for its current window.
func target(id string) string { return "=" + id + ":" }

// paneFormat is one row as list-panes and display print it. The spec is JSON,
// which escapes every tab and newline, so it cannot break the line.
const paneFormat = "#{session_name}\t#{pane_dead}\t#{pane_pid}\t#{pane_dead_status}\t#{pane_dead_signal}\t#{session_created}\t#{@sot_spec}"

// pane is one parsed paneFormat line.
type pane struct {
	id       string
	dead     bool // the agent's terminal closed: it exited, or is exiting
	reaped   bool // tmux has reaped it and knows how it ended
	pid      int
	exitCode int // once reaped: the status, or -1 for a signal
	created  time.Time
	spec     Spec
	ours     bool // the session carries a spec: a row started by a daemon
}

func parsePane(line string) (pane, error) {
	f := strings.Split(line, "\t")
	if len(f) != 7 {
		return pane{}, fmt.Errorf("tmux printed %q, not the 7 fields asked for", line)
	}
	p := pane{id: f[0], dead: f[1] == "1", exitCode: -1}
	p.pid, _ = strconv.Atoi(f[2])
	// tmux marks a pane dead when its terminal closes, which can be a moment
	// before it reaps the process and learns the status or the signal.
	if code, err := strconv.Atoi(f[3]); err == nil {
		p.exitCode, p.reaped = code, true
	}
	if f[4] != "" {
		p.reaped = true
	}
	if secs, err := strconv.ParseInt(f[5], 10, 64); err == nil {
		p.created = time.Unix(secs, 0)
	}
	if f[6] == "" {
		return p, nil
	}
	if err := json.Unmarshal([]byte(f[6]), &p.spec); err != nil {
		return pane{}, fmt.Errorf("session %s carries a row spec tmux did not keep whole (%w): %q", p.id, err, f[6])
	}
	p.ours = p.spec.ID == p.id
	return p, nil
}

// exited reports whether the agent is gone: reaped by tmux, or (a tmux before
// 3.3 names no signal) dead with no process left of that pid.
func (p pane) exited() bool {
	return p.dead && (p.reaped || !processExists(p.pid))
}

// pane is the row of this id as tmux prints it.
func (s tmuxServer) pane(id string) (pane, error) {
	out, err := s.run([]string{"display-message", "-p", "-t", target(id), paneFormat})
	if err != nil {
		return pane{}, err
	}
	return parsePane(lastLine(out))
}

// panes are the daemon-started sessions, one pane each (a person who split a
// row's window added the others), sorted by id.
func (s tmuxServer) panes() ([]pane, error) {
	out, err := s.run([]string{"list-panes", "-a", "-F", paneFormat})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var panes []pane
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		p, err := parsePane(line)
		if err != nil {
			return nil, err
		}
		if p.ours && !seen[p.id] {
			seen[p.id] = true
			panes = append(panes, p)
		}
	}
	sort.Slice(panes, func(i, j int) bool { return panes[i].id < panes[j].id })
	return panes, nil
}

// reap makes the server reap children whose exit it missed. tmux 3.3a was
// seen (about one agent in thirty, killed 200 ms after its start) to leave an
// exited agent a zombie, its pane dead with no status, until some other child
// of the server ended. A run-shell job is such a child: its end makes the
// server reap every child, and run-shell answers only after that.
func (s tmuxServer) reap() {
	_, _ = s.run([]string{"run-shell", "true"})
}
