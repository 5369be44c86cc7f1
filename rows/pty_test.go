//go:build !windows

package rows_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/rows/rowstest"
	"github.com/sotcomm/sotd/screen"
)

// Close ends every PTY row: nothing of them outlives the daemon. goleak, in
// TestMain, checks that their goroutines went too.
func TestPTYCloseEndsRows(t *testing.T) {
	b := rows.NewPTY(rows.Options{})
	var pids []int
	for range 2 {
		info, _ := startAtPrompt(t, b)
		pids = append(pids, info.Pid)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if !groupGone(pid) {
			t.Errorf("process group %d outlived Close", pid)
		}
	}
	spec, _ := agentSpec(t)
	if _, err := b.Start(spec); err == nil {
		t.Error("Start after Close succeeded")
	}
	if found, err := b.Discover(); err != nil || len(found) != 0 {
		t.Errorf("Discover on the PTY backend = %v, %v; PTY rows never survive", found, err)
	}
}

// A PTY row's screen says when each row and the cursor last changed as the
// screen shows them, so the wake's stillness sees every change its emulator
// drew; a row drawn again as it was, and the cursor sent away and back in one
// write, are no change.
func TestPTYScreenSaysWhenRowsChanged(t *testing.T) {
	b := newPTY(t, rows.Options{})
	id, phase := startChanging(t, b, "")
	first := phase("1")
	drawn, untouched := first.Changed[0], first.Changed[30]
	if !untouched.Before(drawn) || first.CursorMoved.Before(drawn) {
		t.Errorf("phase 1: row 30 (blank) changed at %v, row 0 (drawn) at %v, the cursor at %v; want the blank row from the row's start, before the others",
			untouched, drawn, first.CursorMoved)
	}
	checkLaterPhases(t, b, id, phase, first, drawn)
}

// changingScript draws in three phases, each after a line typed into the row;
// echo is off, so the typing draws nothing. Phase 2 draws row 0 as it was and
// sends the cursor away and back; phase 3 changes row 0 and moves the cursor.
const changingScript = `stty -echo
printf '\033[2J\033[1;1Hmascot\033[3;1Hbox\033[10;1H1\033[3;4H'
read a
printf '\033[1;1Hmascot\033[20;1H\033[10;1H2\033[3;4H'
read a
printf '\033[1;1Hmaskot\033[10;1H3\033[3;6H'
read a`

// startChanging starts changingScript as row id ("" for a new one) and gives
// the wait for its phases, which checks that each screen has change times.
func startChanging(t *testing.T, b rows.Backend, id string) (string, func(n string) *screen.Screen) {
	t.Helper()
	info, err := b.Start(rows.Spec{ID: id, Label: "Repo", Agent: rows.Other, Cwd: t.TempDir(), Argv: []string{"/bin/sh", "-c", changingScript}})
	if err != nil {
		t.Fatal(err)
	}
	id = info.Spec.ID
	return id, func(n string) *screen.Screen {
		t.Helper()
		s := rowstest.WaitScreen(t, b, id, wait, "phase "+n, func(s *screen.Screen) bool { return strings.TrimSpace(s.Line(9)) == n })
		if len(s.Changed) != s.Rows {
			t.Fatalf("phase %s: %d change times for %d rows", n, len(s.Changed), s.Rows)
		}
		return s
	}
}

// checkLaterPhases types the lines that bring changingScript's phases 2 and 3
// and checks their change times: phase 2 keeps before's for rows 0 and 30 and
// the cursor, and changes row 9 after from; phase 3 changes row 0 and moves
// the cursor after that.
func checkLaterPhases(t *testing.T, b rows.Backend, id string, phase func(string) *screen.Screen, before *screen.Screen, from time.Time) {
	t.Helper()
	if err := b.Input(id, []byte("\r")); err != nil {
		t.Fatal(err)
	}
	again := phase("2")
	if !again.Changed[0].Equal(before.Changed[0]) || !again.CursorMoved.Equal(before.CursorMoved) || !again.Changed[30].Equal(before.Changed[30]) {
		t.Errorf("phase 2 drew row 0 as it was and sent the cursor away and back: row 0 changed at %v (was %v), the cursor at %v (was %v)",
			again.Changed[0], before.Changed[0], again.CursorMoved, before.CursorMoved)
	}
	if !again.Changed[9].After(from) {
		t.Errorf("phase 2 changed row 9 at %v, not after %v", again.Changed[9], from)
	}
	if err := b.Input(id, []byte("\r")); err != nil {
		t.Fatal(err)
	}
	last := phase("3")
	if !last.Changed[0].After(again.Changed[9]) || !last.CursorMoved.After(again.Changed[9]) {
		t.Errorf("phase 3 changed row 0 and moved the cursor: they changed at %v and %v, want after phase 2 (%v)",
			last.Changed[0], last.CursorMoved, again.Changed[9])
	}
}
