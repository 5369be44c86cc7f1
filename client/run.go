package client

import (
	"cmp"
	"errors"
	"os"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/wire"
)

// Run starts argv as a row of this box's daemon in this folder and puts the
// terminal tty on it: an agent a person starts with sotd run in front is a
// row, so the daemon's typed wake reaches it while it is idle. The row holds
// the handle the agent would join as here and runs with environ, this shell's
// environment, on a terminal of tty's size. A detach leaves the row running;
// the program's exit removes the row (its last screen was just on this
// terminal) and is Run's exit code. Without a terminal or a daemon nothing is
// started.
func (s *Session) Run(argv []string, tty *os.File, environ []string) int {
	switch {
	case !isTerminal(tty):
		s.out("FAILED: sotd run needs a terminal on its standard input, to put the agent on; nothing was started (sotd spawn starts a row without one)")
		return ExitFailed
	case s.Row != "":
		s.out("FAILED: this shell runs in row %s, and sotd run puts a terminal outside any row on a new one; nothing was started (sotd spawn starts another row from here)", s.Row)
		return ExitFailed
	}
	if code := s.callPrinting(wire.OpWorkspaceList, struct{}{}, &wire.WorkspaceList{}, "nothing was started"); code != ExitOK {
		return code
	}
	handle, err := s.runHandle()
	var held errHeld
	var allLive errAllLive
	switch {
	case errors.As(err, &held), errors.As(err, &allLive):
		s.out("sotd run: %v; nothing was started", err)
		return ExitConflict
	case err != nil:
		s.out("FAILED: %v; nothing was started", err)
		return ExitFailed
	}
	agent := string(cmp.Or(ancestry.AgentOf(argv), rows.Other))
	cols, lines := rowSize(tty)
	id, code := s.spawn(wire.WorkspaceSpawn{Handle: handle, Agent: agent, Argv: argv, Env: RunEnv(environ), Cols: cols, Rows: lines})
	if code != ExitOK {
		return code
	}
	s.out("sotd run: row %s runs %s as @%s (agent %s)", id, argv[0], handle, agent)
	code, exited := s.attach(id, tty)
	if exited == nil {
		return code
	}
	var done wire.Done
	if err := s.CallDaemon(wire.OpWorkspaceDestroy, wire.WorkspaceRef{WorkspaceID: id}, &done); err != nil {
		s.warn("sotd run: row %s stays Stopped and holds @%s: %v (sotd despawn %s removes it)", id, handle, err, id)
	} else {
		s.out("sotd run: row %s ended: %s; the row is removed", id, exitSentence(*exited))
	}
	if *exited < 0 {
		return ExitFailed
	}
	return *exited
}

// rowSize is the size of the terminal tty, as a row can take it: a row keeps
// its size when attached to, so one of this terminal's is drawn as it would be
// on it. 0, 0 (the daemon's size) when the terminal does not say.
func rowSize(tty *os.File) (cols, lines int) {
	cols, lines, err := term.GetSize(int(tty.Fd()))
	if err != nil || cols <= 0 || lines <= 0 {
		return 0, 0
	}
	return min(max(cols, rows.MinCols), rows.MaxSide), min(max(lines, rows.MinRows), rows.MaxSide)
}

// runHandle is the handle the agent would join as if started here without
// sotd run: $SOT_COMM_NAME, which it would inherit, else the one sotd join
// derives in this folder. A name a row holds is refused, as join refuses it.
func (s *Session) runHandle() (string, error) {
	root := projectRoot(s.Cwd)
	candidates := registry.Tiers(root, s.Host)
	named := os.Getenv(home.EnvName)
	if named != "" {
		if err := home.CheckHandle(named); err != nil {
			return "", err
		}
	}
	ruling := s.daemonRuling(append([]string{named}, candidates[:]...))
	if err := registry.Ensure(s.Home); err != nil {
		return "", err
	}
	d, err := registry.Read(s.Home)
	if err != nil {
		return "", err
	}
	if named != "" {
		if row := s.holder(ruling, d, named); row != "" {
			return "", errHeld{named, row}
		}
		return named, nil
	}
	name, _, err := s.derive(d, root, ruling, s.otherSessions(d))
	return name, err
}

// RunEnv is the environment sotd run gives its row: environ (the shell's)
// but for what the row's own terminal and identity say (TERM, tmux's
// variables, the window's size, the row id and handle) and for entries a row
// cannot take (a name no shell reads, such as bash's exported functions).
func RunEnv(environ []string) []string {
	var env []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(terminalEnv, k) && rows.CheckEnv(kv) == nil {
			env = append(env, kv)
		}
	}
	return env
}

// terminalEnv describes the terminal sotd run was started in, not the row's.
var terminalEnv = []string{"TERM", "TMUX", "TMUX_PANE", "COLUMNS", "LINES"}
