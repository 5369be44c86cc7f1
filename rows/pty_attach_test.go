//go:build !windows

package rows_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/rows/rowstest"
	"github.com/sotcomm/sotd/screen"
)

// An attachment starts from the row's screen, gets what the program draws
// after it, and ends with the program; a Stopped row cannot be attached.
func TestPTYAttach(t *testing.T) {
	b := newPTY(t, rows.Options{})
	p := b.(*rows.PTY)
	info, err := p.Start(rows.Spec{Label: "Repo", Agent: rows.Other, Cwd: t.TempDir(),
		Argv: []string{"/bin/sh", "-c", `echo ROW-READY; read -r l; echo "got:$l"; exit 4`}})
	if err != nil {
		t.Fatal(err)
	}
	id := info.Spec.ID
	rowstest.WaitScreen(t, b, id, wait, "the mark", func(s *screen.Screen) bool { return strings.Contains(rowstest.Text(s), "ROW-READY") })
	a, err := p.Attach(id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(a.Screen), "ROW-READY") {
		t.Errorf("the attachment's first screen %q does not show the row", a.Screen)
	}
	if err := b.Input(id, []byte("hi\r")); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	timeout := time.After(wait)
	for open := true; open; {
		select {
		case c, ok := <-a.Output:
			got.Write(c)
			open = ok
		case <-timeout:
			t.Fatalf("the attachment did not end with the row's program; it got %q", got.String())
		}
	}
	if !strings.Contains(got.String(), "got:hi") {
		t.Errorf("the attachment got %q, not the program's answer", got.String())
	}
	if !errors.Is(a.Err(), rows.ErrNotRunning) {
		t.Errorf("the attachment ended with %v, want ErrNotRunning", a.Err())
	}
	a.Close()
	rowstest.WaitPhase(t, b, id, wait, rows.Stopped)
	if _, err := p.Attach(id); !errors.Is(err, rows.ErrNotRunning) {
		t.Errorf("Attach of a Stopped row = %v, want ErrNotRunning", err)
	}
}
