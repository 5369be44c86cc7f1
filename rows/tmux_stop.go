package rows

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// Stop implements Backend.
func (t *Tmux) Stop(id string) error {
	p, err := t.pane(id)
	if err != nil {
		return t.gone(id, err)
	}
	if p.exited() {
		return nil
	}
	t.mu.Lock()
	r := t.rowLocked(p)
	t.mu.Unlock()
	r.write.Lock()
	defer r.write.Unlock()
	t.setEnding(r, true)
	defer t.setEnding(r, false)
	if err := stopGroup(tmuxGroup{t: t, id: id, pid: p.pid}, t.opt.StopGrace); err != nil {
		return fmt.Errorf("stop row %s: %w", id, err)
	}
	return nil
}

// tmuxGroup is a row's process group as Stop ends it. tmux, the agent's
// parent, reaps it, so its end is seen by polling the pane, not by a wait.
type tmuxGroup struct {
	t   *Tmux
	id  string
	pid int
}

func (g tmuxGroup) terminate() error { return terminateGroup(g.pid) }
func (g tmuxGroup) kill() error      { return killGroup(g.pid) }

func (g tmuxGroup) wait(d time.Duration) (bool, error) {
	const poll = 20 * time.Millisecond
	deadline := time.Now().Add(d)
	for {
		p, err := g.t.pane(g.id)
		if err != nil {
			return false, err
		}
		if p.exited() || p.pid != g.pid {
			return true, nil
		}
		if time.Now().After(deadline) {
			return false, nil
		}
		time.Sleep(poll)
	}
}

func (t *Tmux) setEnding(r *tmuxRow, on bool) {
	t.mu.Lock()
	r.ending = on
	t.mu.Unlock()
}

// Remove implements Backend.
func (t *Tmux) Remove(id string) error {
	if err := t.Stop(id); err != nil {
		return err
	}
	if _, err := t.srv.run([]string{"kill-session", "-t", target(id)}); err != nil && !errors.Is(err, ErrNoRow) && !errors.Is(err, errNoServer) {
		return fmt.Errorf("remove row %s: %w", id, err)
	}
	// Left only when the row's shell failed before reading it.
	os.Remove(t.envFile(id))
	t.mu.Lock()
	delete(t.rows, id)
	t.removed[id] = true
	w := t.watches[id]
	delete(t.watches, id)
	t.mu.Unlock()
	if w != nil {
		w.stop()
	}
	return nil
}
