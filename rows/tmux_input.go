package rows

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Input implements Backend.
func (t *Tmux) Input(id string, data []byte) error {
	if err := CheckID(id); err != nil {
		return err
	}
	cmds, err := sendKeys(id, data)
	if err != nil || len(cmds) == 0 {
		return err
	}
	r, err := t.liveRow(id)
	if err != nil {
		return err
	}
	if !r.write.TryLock() {
		r.write.Lock()
		// A Stop may have gone first, and tmux types into a dead pane without
		// a word.
		if _, err := t.liveRow(id); err != nil {
			r.write.Unlock()
			return err
		}
	}
	defer r.write.Unlock()
	if _, err := t.srv.run(cmds...); err != nil {
		return fmt.Errorf("type into row %s: %w", id, err)
	}
	return nil
}

// liveRow is the run's record of a row whose process runs.
func (t *Tmux) liveRow(id string) (*tmuxRow, error) {
	p, err := t.pane(id)
	if err != nil {
		return nil, t.gone(id, err)
	}
	if p.exited() {
		return nil, fmt.Errorf("row %s is Stopped (its agent exited with status %d); nothing was typed: %w", id, p.exitCode, ErrNotRunning)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rowLocked(p), nil
}

// sendKeys turns typed bytes into tmux send-keys commands: runs of text go
// literally (-l), a CR is the Enter key, and any other control byte goes as its
// key code (-H), so tmux never reads text as a key name ("Escape", "C-c").
func sendKeys(id string, data []byte) ([][]string, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("the input for row %s is not UTF-8 text; nothing was typed", id)
	}
	t := target(id)
	var cmds [][]string
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			cmds = append(cmds, []string{"send-keys", "-t", t, "-l", "--", text.String()})
			text.Reset()
		}
	}
	for _, r := range string(data) {
		switch {
		case r == '\r':
			flush()
			cmds = append(cmds, []string{"send-keys", "-t", t, "Enter"})
		case r < 0x20 || r == 0x7f:
			flush()
			cmds = append(cmds, []string{"send-keys", "-t", t, "-H", fmt.Sprintf("%02x", r)})
		default:
			text.WriteRune(r)
		}
	}
	flush()
	return cmds, nil
}
