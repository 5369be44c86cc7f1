package rows

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sotcomm/sotd/screen"
)

// watchSync bounds the wait for the watch's answer to a sync: a watch that
// does not answer by then is ended, and the screen goes without times.
const watchSync = 2 * time.Second

// tmuxWatch is a tmux control-mode client attached to one row's session, so
// that a capture of the row can say since when its screen has held still, as
// the PTY's emulator does (screen.Screen's Changed, on the wall clock). tmux
// sends the client a %output line for every chunk the row's agent writes, and
// every visible change comes from one: with no output since T, the screen has
// not changed since T. The times are when the lines arrive, never earlier than the
// output, so they err late, which only makes the wake wait longer. A sync
// after each capture (a command sent down the client, answered after every
// output tmux had read when it ran) makes sure no output the capture shows is
// still on its way.
//
// What tmux changes on its own, without output, has no time here: a window a
// person resizes reflows at once, but the agent redraws on the SIGWINCH and
// that output is seen.
type tmuxWatch struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	ended chan struct{} // closed once the client has exited
	reply chan struct{} // one value per answer to a sync

	mu       sync.Mutex
	attached time.Time // when the attach was answered: nothing is known before
	output   time.Time // when the last %output came

	// looking serializes the captures that note what the row showed.
	looking sync.Mutex
	seen    *seenPane
}

// seenPane is what the last capture noted, guarded by tmuxWatch.looking.
type seenPane struct {
	lines  [][]screen.Cell
	at     []time.Time // by row: when it last changed
	cursor [2]int
	moved  time.Time
	quiet  time.Time // the watch's last output time at that capture
}

// startWatch attaches a control client to row id's session. It does not wait
// for the attach: until it is answered, the watch knows no time.
func (s tmuxServer) startWatch(id string) (*tmuxWatch, error) {
	// read-only and ignore-size: the client can change nothing, and the
	// window keeps its size. No TMUX in its environment: a daemon run inside
	// tmux would make it refuse to nest.
	cmd := exec.Command(s.bin, "-u", "-f", "/dev/null", "-S", s.socket, "-C",
		"attach-session", "-f", "read-only,ignore-size", "-t", "="+id)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "TMUX=") })
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("watch row %s: %w", id, err)
	}
	w := &tmuxWatch{cmd: cmd, stdin: stdin, ended: make(chan struct{}), reply: make(chan struct{}, 1)}
	go w.read(stdout)
	return w, nil
}

// read takes the client's lines until it exits. Only their starts matter,
// so a long %output line is read in pieces and the rest of it skipped.
func (w *tmuxWatch) read(out io.Reader) {
	defer close(w.ended)
	r := bufio.NewReader(out)
	rest := false // the piece read is not the start of a line
	for {
		line, more, err := r.ReadLine()
		if err != nil {
			_ = w.cmd.Wait()
			return
		}
		start := !rest
		rest = more
		if !start {
			continue
		}
		switch {
		case bytes.HasPrefix(line, []byte("%output ")):
			w.mu.Lock()
			w.output = time.Now()
			w.mu.Unlock()
		case bytes.HasPrefix(line, []byte("%end ")) && bytes.HasSuffix(line, []byte(" 0")):
			// The last field is 0 for the attach itself, 1 for a command
			// this client sent.
			w.mu.Lock()
			w.attached = time.Now()
			w.mu.Unlock()
		case bytes.HasPrefix(line, []byte("%end ")) || bytes.HasPrefix(line, []byte("%error ")):
			select {
			case w.reply <- struct{}{}:
			default:
			}
		}
	}
}

// alive reports whether the client still runs.
func (w *tmuxWatch) alive() bool {
	select {
	case <-w.ended:
		return false
	default:
		return true
	}
}

// quietSince syncs with the server and says since when the row has written
// nothing: its last output, or the attach when it has written nothing since.
// It is zero when the watch cannot tell. Callers hold looking.
func (w *tmuxWatch) quietSince() time.Time {
	if _, err := io.WriteString(w.stdin, "display-message -p sot-sync\n"); err != nil {
		return time.Time{}
	}
	select {
	case <-w.reply:
	case <-w.ended:
		return time.Time{}
	case <-time.After(watchSync):
		// Its answer, come late, would pass for the next sync's: the
		// client goes, and the next Screen starts another.
		_ = w.cmd.Process.Kill()
		return time.Time{}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.attached.IsZero() {
		return time.Time{}
	}
	return later(w.attached, w.output)
}

// stamp gives s the times its rows and cursor last changed, by what the last
// capture noted and the row's quiet time: a row that differs changed by the
// last output (at the capture itself when nothing was written since the last
// capture: tmux changed it), one that is the same keeps its time. Sampled
// captures miss a change undone between them, as the wake's own looks would.
// s is left without times when the watch cannot tell. Callers hold looking.
func (w *tmuxWatch) stamp(s *screen.Screen, now time.Time) {
	quiet := w.quietSince()
	if quiet.IsZero() {
		w.seen = nil
		return
	}
	lines := make([][]screen.Cell, len(s.Lines))
	for y, l := range s.Lines {
		lines[y] = slices.Clone(l)
	}
	prev := w.seen
	changed := quiet
	if prev != nil && !quiet.After(prev.quiet) {
		changed = now
	}
	seen := &seenPane{lines: lines, at: make([]time.Time, len(s.Lines)), cursor: [2]int{s.CursorRow, s.CursorCol}, moved: quiet, quiet: quiet}
	sameSize := prev != nil && len(prev.lines) == len(s.Lines)
	for y := range s.Lines {
		switch {
		case !sameSize:
			seen.at[y] = quiet
		case slices.Equal(prev.lines[y], s.Lines[y]):
			seen.at[y] = prev.at[y]
		default:
			seen.at[y] = changed
		}
	}
	switch {
	case !sameSize:
	case prev.cursor == seen.cursor:
		seen.moved = prev.moved
	default:
		seen.moved = changed
	}
	w.seen = seen
	s.Changed, s.CursorMoved = slices.Clone(seen.at), seen.moved
}

// stop ends the client and waits for it.
func (w *tmuxWatch) stop() {
	_ = w.stdin.Close() // a control client exits when its input ends
	select {
	case <-w.ended:
	case <-time.After(watchSync):
		_ = w.cmd.Process.Kill()
		<-w.ended
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
