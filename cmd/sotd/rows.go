package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/screen"
	"github.com/sotcomm/sotd/wire"
)

func init() {
	verbs["spawn"] = verb{"run an agent as a row of this box's daemon", `
usage: sotd spawn [--label L] [--handle H] [--agent claude|codex|other] [--cwd DIR] [--env K=V]... -- CMD ARGS...

Starts CMD in a row of the daemon (a tmux session on its private socket, or a
built-in PTY) and prints the row's id. The label defaults to the folder's
name, the folder to the current one, the agent to the one CMD names (claude
or codex, also as a node script), else other; the wake types only into claude
rows. With --handle the row declares and joins that handle: the
registry binds it to the row, a row that held it loses it, and the agent runs
with SOT_COMM_NAME and SOT_WORKSPACE_ID set, so mail to it files while the row
runs. Each --env K=V (repeatable) adds K to the row's environment, over the
daemon's (HOME, an API setting); K is a variable name, and the two identity
variables are not taken.`, runSpawn}
	verbs["despawn"] = verb{"end a row and remove it", `
usage: sotd despawn ID

Ends the row's process group (SIGTERM, then SIGKILL) and removes the row; the
handle it held is free again.`, runDespawn}
	verbs["attach"] = verb{"attach this terminal to a row", `
usage: sotd attach ID

Puts this terminal on the row: a tmux row through tmux on the rows' private
socket (C-b d detaches), a PTY row through the daemon (Ctrl-] detaches).
Detaching leaves the row running.`, runAttach}
	verbs["rows"] = verb{"list the daemon's rows, or save one's screen", `
usage: sotd rows [--json]
       sotd rows screen ID [--out FILE]

Lists every row with its phase (Starting, Ready, Ending, Stopped, with how a
Stopped row's program ended) and the handle the registry binds to it. "rows screen" prints a live row's screen in the
screen text format (or saves it to FILE), which sotd wake check reads.`, runRows}
}

func runSpawn(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var req wire.WorkspaceSpawn
	argv, ok := flags("spawn", args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&req.Label, "label", "", "the row's label (default: the folder's name)")
		fs.StringVar(&req.Handle, "handle", "", "the comm handle the row's agent joins as")
		fs.StringVar(&req.Agent, "agent", "", "claude, codex or other (default: the one CMD names, else other)")
		fs.StringVar(&req.Cwd, "cwd", "", "the folder the agent runs in (default: this one)")
		fs.Var((*client.RowEnv)(&req.Env), "env", "K=V added to the row's environment (repeatable)")
	})
	if !ok || len(argv) == 0 {
		if ok {
			fmt.Fprintln(stderr, "sotd spawn: no command: give it after --")
		}
		return usageErr(stderr, "spawn", nil)
	}
	req.Argv = argv
	cwd, err := absCwd(req.Cwd)
	if err != nil {
		fmt.Fprintf(stdout, "FAILED: %v; no row was started\n", err)
		return client.ExitFailed
	}
	req.Cwd = cwd
	if req.Label == "" {
		req.Label = filepath.Base(cwd)
	}
	var ref wire.WorkspaceRef
	if code := callDaemon(stdout, stderr, wire.OpWorkspaceSpawn, req, &ref, "no row was started"); code != 0 {
		return code
	}
	fmt.Fprintln(stdout, ref.WorkspaceID)
	return client.ExitOK
}

// absCwd is the row's folder made absolute, the current one when none is given.
func absCwd(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--cwd %s is not a folder", dir)
	}
	return abs, nil
}

func runDespawn(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return usageErr(stderr, "despawn", args)
	}
	var done wire.Done
	if code := callDaemon(stdout, stderr, wire.OpWorkspaceDestroy, wire.WorkspaceRef{WorkspaceID: args[0]}, &done, "nothing was removed"); code != 0 {
		return code
	}
	fmt.Fprintf(stdout, "removed row %s\n", args[0])
	return client.ExitOK
}

func runAttach(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return usageErr(stderr, "attach", args)
	}
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	return s.Attach(args[0], os.Stdin)
}

func runRows(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "screen" {
		return runRowsScreen(args[1:], stdout, stderr)
	}
	var asJSON bool
	rest, ok := flags("rows", args, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print workspace.list's answer as JSON")
	})
	if !ok || len(rest) > 0 {
		return usageErr(stderr, "rows", rest)
	}
	var list wire.WorkspaceList
	if code := callDaemon(stdout, stderr, wire.OpWorkspaceList, struct{}{}, &list, "nothing was listed"); code != 0 {
		return code
	}
	if asJSON {
		b, err := json.MarshalIndent(list.Workspaces, "", "  ")
		if err != nil {
			fmt.Fprintf(stdout, "FAILED: %v\n", err)
			return client.ExitFailed
		}
		fmt.Fprintf(stdout, "%s\n", b)
		return client.ExitOK
	}
	if len(list.Workspaces) == 0 {
		fmt.Fprintln(stdout, "no rows")
		return client.ExitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPHASE\tAGENT\tHANDLE\tLABEL")
	for _, w := range list.Workspaces {
		handle := "-"
		if w.AgentHandle != "" {
			handle = "@" + w.AgentHandle
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", w.ID, client.RowPhase(w), w.Agent, handle, w.Label)
	}
	tw.Flush()
	return client.ExitOK
}

func runRowsScreen(args []string, stdout, stderr io.Writer) int {
	var out string
	fs := flag.NewFlagSet("rows screen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&out, "out", "", "save the screen to this file instead of printing it")
	// The id may come before or after --out.
	var rest []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return usageErr(stderr, "rows", nil)
		}
		if args = fs.Args(); len(args) > 0 {
			rest, args = append(rest, args[0]), args[1:]
		}
	}
	if len(rest) != 1 {
		return usageErr(stderr, "rows", rest)
	}
	var ps wire.PtyScreen
	if code := callDaemon(stdout, stderr, wire.OpPtyScreen, wire.WorkspaceRef{WorkspaceID: rest[0]}, &ps, "no screen was saved"); code != 0 {
		return code
	}
	s, err := screenOf(ps)
	if err != nil {
		fmt.Fprintf(stdout, "FAILED: row %s's screen does not read back: %v\n", rest[0], err)
		return client.ExitFailed
	}
	w := stdout
	if out != "" {
		f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			fmt.Fprintf(stdout, "FAILED: %v; no screen was saved\n", err)
			return client.ExitFailed
		}
		defer f.Close()
		w = f
	}
	if err := screen.Write(w, s); err != nil {
		fmt.Fprintf(stdout, "FAILED: %v\n", err)
		return client.ExitFailed
	}
	if out != "" {
		fmt.Fprintf(stdout, "saved row %s's screen to %s\n", rest[0], out)
	}
	return client.ExitOK
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

// callDaemon makes one request of this box's daemon, printing the FAILED line
// (with what was not done) when it is refused or nothing answers.
func callDaemon(stdout, stderr io.Writer, op string, req, resp any, notDone string) int {
	s, code := session(stdout, stderr)
	if s == nil {
		return code
	}
	if err := s.CallDaemon(op, req, resp); err != nil {
		fmt.Fprintf(stdout, "FAILED: %v; %s\n", err, notDone)
		return client.ExitFailed
	}
	return client.ExitOK
}
