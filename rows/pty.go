package rows

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/vt"

	"github.com/sotcomm/sotd/screen"
)

// PTY runs rows as children of the daemon on pseudo-terminals, each read into a
// VT emulator. Its rows end with the daemon: Close stops them, and a restarted
// daemon finds none.
type PTY struct {
	opt Options

	mu      sync.Mutex
	rows    map[string]*ptyRow
	removed map[string]bool
	closed  bool

	wg sync.WaitGroup // every row's goroutines
}

// NewPTY is the built-in PTY backend.
func NewPTY(opt Options) *PTY {
	return &PTY{opt: opt.withDefaults(), rows: map[string]*ptyRow{}, removed: map[string]bool{}}
}

// Name implements Backend.
func (p *PTY) Name() string { return "pty" }

// Start implements Backend.
func (p *PTY) Start(spec Spec) (RowInfo, error) {
	spec, err := spec.normalize()
	if err != nil {
		return RowInfo{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return RowInfo{}, fmt.Errorf("start row %s: the PTY backend is closed", spec.ID)
	}
	if _, ok := p.rows[spec.ID]; ok {
		return RowInfo{}, fmt.Errorf("start row %s: %w", spec.ID, ErrRowExists)
	}
	cols, rows := spec.size(p.opt)
	pr, err := startProc(spec.Argv, spec.Cwd, ptyEnv(spec), cols, rows)
	if err != nil {
		return RowInfo{}, fmt.Errorf("start row %s (%s): %w", spec.ID, spec.Argv[0], err)
	}
	emu := vt.NewEmulator(cols, rows)
	r := &ptyRow{
		spec:    spec,
		proc:    pr,
		started: p.opt.Now(),
		emu:     emu,
		seen:    newChanges(emu, time.Now()),
		reaped:  make(chan struct{}),
		done:    make(chan struct{}),
	}
	delete(p.removed, spec.ID)
	p.rows[spec.ID] = r
	readerDone, replierDone := make(chan struct{}), make(chan struct{})
	p.wg.Add(3)
	go func() { defer p.wg.Done(); defer close(readerDone); r.read() }()
	go func() { defer p.wg.Done(); defer close(replierDone); r.reply() }()
	go func() { defer p.wg.Done(); r.waitExit(readerDone, replierDone) }()
	return p.infoOf(r), nil
}

// ptyEnv is the row's environment: the daemon's, less any row identity, with
// TERM naming what the emulator understands (the daemon's own TERM describes
// some other terminal, or none), then the row's entries.
func ptyEnv(spec Spec) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TERM=") && !isIdentity(kv) {
			env = append(env, kv)
		}
	}
	env = append(env, "TERM=xterm-256color")
	return append(env, spec.rowEnv()...)
}

// row is the row of this id, or an error naming why there is none.
func (p *PTY) row(id string) (*ptyRow, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.rows[id]; ok {
		return r, nil
	}
	if p.removed[id] {
		return nil, fmt.Errorf("row %s was removed; it is Terminal: %w", id, ErrNoRow)
	}
	return nil, fmt.Errorf("no row %s in this daemon's PTY rows (they do not survive a daemon restart): %w", id, ErrNoRow)
}

func (p *PTY) infoOf(r *ptyRow) RowInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	info := RowInfo{Spec: r.spec, Backend: p.Name(), Pid: r.proc.Pid(), Started: r.started}
	switch {
	case r.ending:
		info.Phase = Ending
	case r.exited:
		info.Phase = Stopped
		info.ExitCode = r.exitCode
	case !r.drawn && p.opt.Now().Sub(r.started) < StartingFor:
		info.Phase = Starting
	default:
		info.Phase = Ready
	}
	return info
}

// Info implements Backend.
func (p *PTY) Info(id string) (RowInfo, error) {
	r, err := p.row(id)
	if err != nil {
		if p.isRemoved(id) {
			return RowInfo{Spec: Spec{ID: id}, Backend: p.Name(), Phase: Terminal}, nil
		}
		return RowInfo{}, err
	}
	return p.infoOf(r), nil
}

func (p *PTY) isRemoved(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.removed[id]
}

// List implements Backend.
func (p *PTY) List() ([]RowInfo, error) {
	p.mu.Lock()
	rows := make([]*ptyRow, 0, len(p.rows))
	for _, r := range p.rows {
		rows = append(rows, r)
	}
	p.mu.Unlock()
	sort.Slice(rows, func(i, j int) bool { return rows[i].spec.ID < rows[j].spec.ID })
	out := make([]RowInfo, 0, len(rows))
	for _, r := range rows {
		out = append(out, p.infoOf(r))
	}
	return out, nil
}

// Discover implements Backend: PTY rows die with the daemon that ran them.
func (p *PTY) Discover() ([]RowInfo, error) { return nil, nil }

// Screen implements Backend.
func (p *PTY) Screen(id string) (*screen.Screen, error) {
	r, err := p.row(id)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	pos := r.emu.CursorPosition()
	s := snapshot(r.emu, pos.Y, pos.X)
	r.seen.stamp(s)
	return s, nil
}

// Texts implements Backend: the emulator's cells cost no more with their
// attributes.
func (p *PTY) Texts(ids []string) (map[string]*screen.Screen, error) {
	return eachScreen(ids, p.Screen)
}

// Input implements Backend.
func (p *PTY) Input(id string, data []byte) error {
	r, err := p.row(id)
	if err != nil {
		return err
	}
	r.write.Lock()
	defer r.write.Unlock()
	select {
	case <-r.reaped:
		return fmt.Errorf("row %s is Stopped (its agent exited); nothing was typed: %w", id, ErrNotRunning)
	default:
	}
	_ = r.proc.SetWriteDeadline(time.Now().Add(inputWait))
	if _, err := r.proc.Write(data); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("type into row %s: its agent has not read its input for %v", id, inputWait)
		}
		return fmt.Errorf("type into row %s: %w", id, err)
	}
	return nil
}

// Stop implements Backend.
func (p *PTY) Stop(id string) error {
	r, err := p.row(id)
	if err != nil {
		return err
	}
	return p.stop(r)
}

// stop does not hold the row's write lock: the replier needs it to answer a
// query the agent makes as it ends, and until that answer is taken the reader,
// and so the reaping of the row, cannot finish.
func (p *PTY) stop(r *ptyRow) error {
	r.stopping.Lock()
	defer r.stopping.Unlock()
	r.setEnding(true)
	defer r.setEnding(false)
	if err := stopGroup(ptyGroup{r}, p.opt.StopGrace); err != nil {
		return fmt.Errorf("stop row %s: %w", r.spec.ID, err)
	}
	<-r.done
	return nil
}

// Remove implements Backend.
func (p *PTY) Remove(id string) error {
	r, err := p.row(id)
	if err != nil {
		return err
	}
	if err := p.stop(r); err != nil {
		return err
	}
	p.mu.Lock()
	delete(p.rows, id)
	p.removed[id] = true
	p.mu.Unlock()
	return nil
}

// Close implements Backend: it stops every row and waits for all their
// goroutines, since nothing of a PTY row can outlive the daemon.
func (p *PTY) Close() error {
	p.mu.Lock()
	p.closed = true
	rows := make([]*ptyRow, 0, len(p.rows))
	for _, r := range p.rows {
		rows = append(rows, r)
	}
	p.mu.Unlock()
	var errs []error
	for _, r := range rows {
		errs = append(errs, p.stop(r))
	}
	p.wg.Wait()
	return errors.Join(errs...)
}
