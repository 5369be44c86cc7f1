package rows

import (
	"io"
	"sync"
	"time"

	"github.com/charmbracelet/x/vt"
)

// proc is an agent on a pseudo-terminal: reading gives what it draws, writing
// is typing. Each OS starts one its own way (startProc).
type proc interface {
	io.ReadWriter
	Pid() int
	// Wait reaps the process and gives its exit status (-1 for a signal).
	Wait() int
	terminate() error
	kill() error
	// SetWriteDeadline bounds a write to an agent that does not read its input.
	SetWriteDeadline(t time.Time) error
	// Close closes the terminal's master side, which ends a pending Read.
	Close() error
}

// ptyRow is one row. Three goroutines serve it, all owned by the PTY's wg: the
// reader (terminal → emulator), the replier (the emulator's answers to the
// agent's queries → terminal) and the waiter (reaps the process, then ends the
// other two).
type ptyRow struct {
	spec    Spec
	proc    proc
	started time.Time

	write    sync.Mutex // serializes writes to the terminal: Input and replies
	stopping sync.Mutex // serializes Stops

	mu       sync.Mutex // guards the fields below
	emu      *vt.Emulator
	seen     *changes // when each row of emu, and its cursor, last changed (wall clock)
	osc      oscGuard // what the emulator is given of an OSC string
	drawn    bool
	ending   bool
	exited   bool
	exitCode int
	readDone bool                     // the reader has ended: nothing more is drawn
	watchers map[*Attachment]struct{} // people's terminals attached to the row

	reaped chan struct{} // closed when the process is reaped
	done   chan struct{} // closed when the row's goroutines have ended
}

// inputWait bounds one write to a row whose agent does not read its input.
const inputWait = 5 * time.Second

// drainWait is how long the reader may go on after the agent exits, taking the
// last of its output, before the terminal is closed under it (a child the agent
// left behind may hold the terminal open forever).
const drainWait = 500 * time.Millisecond

// read feeds the agent's output to the emulator, and to every attached
// terminal, until the terminal closes.
func (r *ptyRow) read() {
	defer func() {
		r.mu.Lock()
		r.endWatchersLocked()
		r.mu.Unlock()
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.proc.Read(buf)
		if n > 0 {
			r.mu.Lock()
			_, _ = r.emu.Write(r.osc.clean(buf[:n]))
			r.seen.note(r.emu, time.Now())
			r.drawn = true
			r.tellWatchersLocked(buf[:n])
			r.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// reply sends the emulator's answers (cursor position reports, device
// attributes) back to the agent, which may wait for them before it draws. A
// failed write drops that answer but the loop goes on reading: an unread answer
// would block the emulator, and with it the reader and every Screen.
func (r *ptyRow) reply() {
	buf := make([]byte, 4<<10)
	for {
		n, err := r.emu.Read(buf)
		if n > 0 {
			r.write.Lock()
			_ = r.proc.SetWriteDeadline(time.Now().Add(inputWait))
			_, _ = r.proc.Write(buf[:n])
			r.write.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// waitExit reaps the agent, lets the reader take its last output, then closes
// the terminal and the emulator's answer pipe so the other two goroutines end.
func (r *ptyRow) waitExit(readerDone, replierDone <-chan struct{}) {
	code := r.proc.Wait()
	r.mu.Lock()
	r.exited, r.exitCode = true, code
	r.mu.Unlock()
	close(r.reaped)
	select {
	case <-readerDone:
	case <-time.After(drainWait):
	}
	_ = r.proc.Close()
	<-readerDone
	// The emulator's Close would race with the replier's Read on its closed
	// flag; closing the pipe's writer ends that Read just the same.
	if c, ok := r.emu.InputPipe().(io.Closer); ok {
		_ = c.Close()
	}
	<-replierDone
	close(r.done)
}

func (r *ptyRow) setEnding(on bool) {
	r.mu.Lock()
	r.ending = on && !r.exited
	r.mu.Unlock()
}

// ptyGroup is a row's process group as Stop ends it; the waiter goroutine
// reaps its leader.
type ptyGroup struct{ r *ptyRow }

func (g ptyGroup) terminate() error { return g.r.proc.terminate() }
func (g ptyGroup) kill() error      { return g.r.proc.kill() }

func (g ptyGroup) wait(d time.Duration) (bool, error) {
	select {
	case <-g.r.reaped:
		return true, nil
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-g.r.reaped:
		return true, nil
	case <-t.C:
		return false, nil
	}
}
