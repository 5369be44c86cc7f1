package rows

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// ErrBehind ends an attachment whose terminal took the row's output slower
// than the row drew it: the row's reader, which the wake's screens depend on,
// never waits for a person's terminal.
var ErrBehind = errors.New("the terminal did not keep up with the row's output")

// attachBacklog is how many of the reader's chunks (up to 32 KiB each) an
// attachment may have untaken before it is ended as behind.
const attachBacklog = 256

// Attachment is a person's terminal on a PTY row: the row's screen as it is,
// then every byte its program draws. The row keeps its size: the terminal
// shows it as drawn for the row's size, as a tmux row is shown.
type Attachment struct {
	Screen []byte        // the row's screen now, as a terminal draws it: start from this
	Output <-chan []byte // the program's output from then on; closed when the attachment ends

	r    *ptyRow
	out  chan []byte
	once sync.Once
	err  error // why Output closed; set before the close
}

// Err is why Output was closed: ErrNotRunning when the row's program exited,
// ErrBehind, or nil after Close.
func (a *Attachment) Err() error { return a.err }

// Close ends the attachment; the row runs on.
func (a *Attachment) Close() {
	a.r.mu.Lock()
	defer a.r.mu.Unlock()
	a.endLocked(nil)
}

// endLocked closes Output once, for err; the row's mu is held.
func (a *Attachment) endLocked(err error) {
	a.once.Do(func() {
		delete(a.r.watchers, a)
		a.err = err
		close(a.out)
	})
}

// Attach starts an attachment to a running row. The screen and the first byte
// of output after it are taken under the row's lock, so nothing drawn between
// them is lost or shown twice.
func (p *PTY) Attach(id string) (*Attachment, error) {
	r, err := p.row(id)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.exited || r.readDone {
		return nil, fmt.Errorf("row %s is Stopped (its program exited); sotd rows screen %s shows its last screen: %w", id, id, ErrNotRunning)
	}
	out := make(chan []byte, attachBacklog)
	a := &Attachment{Screen: drawing(r.emu), Output: out, r: r, out: out}
	if r.watchers == nil {
		r.watchers = map[*Attachment]struct{}{}
	}
	r.watchers[a] = struct{}{}
	return a, nil
}

// tellWatchersLocked hands a chunk the program drew to every attachment; the
// row's mu is held.
func (r *ptyRow) tellWatchersLocked(chunk []byte) {
	if len(r.watchers) == 0 {
		return
	}
	c := bytes.Clone(chunk)
	for a := range r.watchers {
		select {
		case a.out <- c:
		default:
			a.endLocked(ErrBehind)
		}
	}
}

// endWatchersLocked ends every attachment once the program's output has ended.
func (r *ptyRow) endWatchersLocked() {
	r.readDone = true
	for a := range r.watchers {
		a.endLocked(ErrNotRunning)
	}
}

// drawing is what the emulator shows, as bytes that draw it on a terminal:
// each line at its place with its styles, then the cursor where the program
// left it.
func drawing(e *vt.Emulator) []byte {
	var b strings.Builder
	if e.IsAltScreen() {
		b.WriteString(ansi.SetModeAltScreenSaveCursor)
	}
	b.WriteString(ansi.ResetStyle + ansi.EraseEntireScreen)
	for y, line := range strings.Split(e.Render(), "\n") {
		b.WriteString(ansi.CursorPosition(1, y+1) + line + ansi.ResetStyle)
	}
	pos := e.CursorPosition()
	b.WriteString(ansi.CursorPosition(pos.X+1, pos.Y+1))
	if e.CursorHidden() {
		b.WriteString(ansi.HideCursor)
	} else {
		b.WriteString(ansi.ShowCursor)
	}
	return []byte(b.String())
}
