package rows

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"

	"github.com/sotcomm/sotd/screen"
)

// Screen implements Backend. The pane is captured with its escape sequences
// and replayed into a VT emulator of the pane's size, which gives the cells'
// attributes (dim) and wide characters exactly as the PTY backend reads them.
// The screen also says when each of its rows last changed, by the row's watch
// (tmux_watch.go), started again when its client has exited (the server
// restarted, a person detached it); it knows nothing before it attached.
func (t *Tmux) Screen(id string) (*screen.Screen, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	w := t.watch(id)
	if w == nil {
		return t.capture(id, true)
	}
	w.looking.Lock()
	defer w.looking.Unlock()
	s, err := t.capture(id, true)
	if err == nil {
		w.stamp(s, time.Now())
	}
	return s, err
}

// watch is row id's watch, a new one when it has none or its client has
// exited. It is nil once the backend is closed, or when tmux cannot be run.
func (t *Tmux) watch(id string) *tmuxWatch {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w := t.watches[id]; w != nil && w.alive() {
		return w
	}
	if t.closed {
		return nil
	}
	w, err := t.srv.startWatch(id)
	if err != nil {
		return nil
	}
	t.watches[id] = w
	return w
}

// Texts implements Backend. Every pane is captured plain by one tmux client (a
// process per row would cost more than the reading) and read as text: no
// emulator is made, which is most of a Screen's cost (each allocates a 4 MiB
// parser buffer). A random mark heads each pane's part, so no pane's text can
// pass for a boundary. One row gone ends tmux's sequence, so then each row is
// read alone.
func (t *Tmux) Texts(ids []string) (map[string]*screen.Screen, error) {
	out := make(map[string]*screen.Screen, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	mark := "sot-" + strings.ToLower(rand.Text())
	var cmds [][]string
	for _, id := range ids {
		if err := CheckID(id); err != nil {
			return nil, err
		}
		cmds = append(cmds,
			[]string{"display-message", "-p", "-t", target(id), mark + " " + id + " " + captureHead},
			capturePane(id, false))
	}
	b, err := t.srv.run(cmds...)
	if err != nil {
		return eachScreen(ids, func(id string) (*screen.Screen, error) { return t.capture(id, false) })
	}
	for _, part := range strings.Split(string(b), mark+" ")[1:] {
		id, capture, _ := strings.Cut(part, " ")
		s, ours, err := parseCapture([]byte(capture), false)
		if err != nil {
			return nil, fmt.Errorf("read row %s: %w", id, err)
		}
		if ours {
			out[id] = s
		}
	}
	return out, nil
}

// eachScreen reads the rows one at a time, leaving out the rows that are gone.
func eachScreen(ids []string, read func(id string) (*screen.Screen, error)) (map[string]*screen.Screen, error) {
	out := make(map[string]*screen.Screen, len(ids))
	for _, id := range ids {
		s, err := read(id)
		switch {
		case errors.Is(err, ErrNoRow):
		case err != nil:
			return nil, err
		default:
			out[id] = s
		}
	}
	return out, nil
}

// capture reads the pane, with its attributes when attrs is set.
func (t *Tmux) capture(id string, attrs bool) (*screen.Screen, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	out, err := t.srv.run(
		[]string{"display-message", "-p", "-t", target(id), captureHead},
		capturePane(id, attrs),
	)
	if errors.Is(err, errNoServer) {
		err = ErrNoRow
	}
	if err != nil {
		return nil, t.gone(id, err)
	}
	s, ours, err := parseCapture(out, attrs)
	if err == nil && !ours {
		err = fmt.Errorf("session %s on %s was not started by a daemon (it has no row spec): %w", id, t.srv.socket, ErrNoRow)
	}
	return s, err
}

// captureHead comes before the captured pane: where the cursor is, the pane's
// size, 1 when the session is a row (it carries a spec), and 1 when the pane
// shows tmux's "Pane is dead" line (paneDeadShown).
const captureHead = "#{cursor_x} #{cursor_y} #{pane_width} #{pane_height} #{?@sot_spec,1,0} " + paneDeadShown

// paneDeadShown is 1 once tmux has drawn its "Pane is dead (status …)" line
// under remain-on-exit: it does that when it has reaped the agent and its
// terminal has closed, by moving to the bottom line and feeding a line, which
// scrolls the agent's last screen up by one. The top line (a one-line
// "FATAL: …" the agent printed before it exited) goes into the history.
const paneDeadShown = "#{?pane_dead,#{!=:#{pane_dead_status}#{pane_dead_signal},},0}"

// capturePane captures the row's screen as its agent left it. Once the dead
// line is drawn that is the history's last line and the screen above the dead
// line (parseCapture drops the dead line); tmux chooses which, in the same
// command sequence as the head that tells parseCapture which it chose.
func capturePane(id string, attrs bool) []string {
	live := "capture-pane -p -t " + target(id)
	if attrs {
		live += " -e"
	}
	return []string{"if-shell", "-F", "-t", target(id), paneDeadShown, live + " -S -1", live}
}

// maxCells bounds a pane's side, so a garbled geometry line cannot make the
// emulator allocate without end; rows are 120x40 unless Options say otherwise.
const maxCells = 2000

// parseCapture reads the captureHead line and the captured pane after it,
// replaying its escape sequences when attrs is set, else as plain text.
func parseCapture(out []byte, attrs bool) (s *screen.Screen, ours bool, err error) {
	head, body, _ := strings.Cut(string(out), "\n")
	var cx, cy, w, h, row, dead int
	if _, err := fmt.Sscanf(head, "%d %d %d %d %d %d", &cx, &cy, &w, &h, &row, &dead); err != nil || w <= 0 || h <= 0 || w > maxCells || h > maxCells {
		return nil, false, fmt.Errorf("tmux printed %q for the pane's cursor and size", head)
	}
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if dead == 1 && len(lines) > 1 {
		lines = lines[:len(lines)-1]
	}
	if !attrs {
		return screen.FromText(lines, w, h, cy, cx), row == 1, nil
	}
	e := vt.NewEmulator(w, h)
	// The capture ends every line with a bare LF; the emulator needs CR LF to
	// start the next line at column 0. Attributes run on across lines, as in the
	// capture, and the last line's LF is dropped so nothing scrolls. Autowrap is
	// off so a line the emulator measures wider than tmux did (a character whose
	// width they disagree on) is cut at the edge instead of pushing every line
	// below it down.
	if len(lines) > h {
		lines = lines[:h]
	}
	// A query in the capture (none is expected) would block the emulator on
	// its answer until someone reads it; the answers go nowhere.
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		_, _ = io.Copy(io.Discard, e)
	}()
	_, err = e.WriteString(ansi.ResetModeAutoWrap + strings.Join(lines, "\r\n"))
	if c, ok := e.InputPipe().(io.Closer); ok {
		_ = c.Close()
	}
	<-drained
	if err != nil {
		return nil, false, fmt.Errorf("replay the captured pane: %w", err)
	}
	return snapshot(e, cy, cx), row == 1, nil
}
