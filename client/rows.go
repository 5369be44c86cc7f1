package client

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/sotcomm/sotd/screen"
	"github.com/sotcomm/sotd/wire"
)

// Spawn asks this box's daemon to start a row and prints its id. The folder is
// made absolute here (the daemon runs elsewhere) and names the row when no
// label is given.
func (s *Session) Spawn(req wire.WorkspaceSpawn) int {
	id, code := s.spawn(req)
	if code == ExitOK {
		s.out("%s", id)
	}
	return code
}

// spawn is Spawn but for printing the new row's id, which it returns.
func (s *Session) spawn(req wire.WorkspaceSpawn) (id string, code int) {
	cwd, err := absFolder(req.Cwd, s.Cwd)
	if err != nil {
		s.out("FAILED: %v; no row was started", err)
		return "", ExitFailed
	}
	req.Cwd = cwd
	if req.Label == "" {
		req.Label = filepath.Base(cwd)
	}
	var ref wire.WorkspaceRef
	if code := s.callPrinting(wire.OpWorkspaceSpawn, req, &ref, "no row was started"); code != ExitOK {
		return "", code
	}
	return ref.WorkspaceID, ExitOK
}

// absFolder is dir made absolute against cwd, cwd itself when dir is "".
func absFolder(dir, cwd string) (string, error) {
	if dir == "" {
		return cwd, nil
	}
	abs := filepath.Clean(dir)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, abs)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--cwd %s is not a folder", dir)
	}
	return abs, nil
}

// Despawn asks this box's daemon to end row id and remove it.
func (s *Session) Despawn(id string) int {
	var done wire.Done
	if code := s.callPrinting(wire.OpWorkspaceDestroy, wire.WorkspaceRef{WorkspaceID: id}, &done, "nothing was removed"); code != ExitOK {
		return code
	}
	s.out("removed row %s", id)
	return ExitOK
}

// Rows prints the daemon's rows as a table, or workspace.list's answer as JSON.
func (s *Session) Rows(asJSON bool) int {
	var list wire.WorkspaceList
	if code := s.callPrinting(wire.OpWorkspaceList, struct{}{}, &list, "nothing was listed"); code != ExitOK {
		return code
	}
	if asJSON {
		b, err := json.MarshalIndent(list.Workspaces, "", "  ")
		if err != nil {
			s.out("FAILED: %v", err)
			return ExitFailed
		}
		s.out("%s", b)
		return ExitOK
	}
	if len(list.Workspaces) == 0 {
		s.out("no rows")
		return ExitOK
	}
	tw := tabwriter.NewWriter(s.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPHASE\tAGENT\tHANDLE\tLABEL")
	for _, w := range list.Workspaces {
		handle := "-"
		if w.AgentHandle != "" {
			handle = "@" + w.AgentHandle
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", w.ID, RowPhase(w), w.Agent, handle, w.Label)
	}
	tw.Flush()
	return ExitOK
}

// RowScreen prints row id's live screen in the screen text format, or saves it
// to the file out when out is not "".
func (s *Session) RowScreen(id, out string) int {
	var ps wire.PtyScreen
	if code := s.callPrinting(wire.OpPtyScreen, wire.WorkspaceRef{WorkspaceID: id}, &ps, "no screen was saved"); code != ExitOK {
		return code
	}
	sc, err := screenOf(ps)
	if err != nil {
		s.out("FAILED: row %s's screen does not read back: %v", id, err)
		return ExitFailed
	}
	var w io.Writer = s.Stdout
	if out != "" {
		f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			s.out("FAILED: %v; no screen was saved", err)
			return ExitFailed
		}
		defer f.Close()
		w = f
	}
	if err := screen.Write(w, sc); err != nil {
		s.out("FAILED: %v", err)
		return ExitFailed
	}
	if out != "" {
		s.out("saved row %s's screen to %s", id, out)
	}
	return ExitOK
}

// screenOf reads pty.screen's answer through the screen text format's own
// parser, so what is saved is exactly what sotd wake check reads.
func screenOf(ps wire.PtyScreen) (*screen.Screen, error) {
	var b strings.Builder
	for _, l := range ps.Lines {
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(&b, "cols=%d rows=%d cursor=%d,%d\n", ps.Cols, ps.Rows, ps.Cursor.Row, ps.Cursor.Col)
	if ps.Dim != "" {
		b.WriteString("dim=" + ps.Dim + "\n")
	}
	return screen.Parse(strings.NewReader(b.String()))
}

// callPrinting makes one request of this box's daemon, printing the FAILED
// line (with what was not done) when it is refused or nothing answers.
func (s *Session) callPrinting(op string, req, resp any, notDone string) int {
	if err := s.CallDaemon(op, req, resp); err != nil {
		s.out("FAILED: %v; %s", err, notDone)
		return ExitFailed
	}
	return ExitOK
}

// RowPhase is a row's phase as a person reads it in a table: a Stopped row says
// how its program ended, the first thing to know about a row that stopped on
// its own.
func RowPhase(w wire.Workspace) string {
	switch {
	case w.ExitCode == nil:
		return w.Phase
	case *w.ExitCode < 0:
		return w.Phase + " (killed by a signal)"
	}
	return fmt.Sprintf("%s (exit %d)", w.Phase, *w.ExitCode)
}
