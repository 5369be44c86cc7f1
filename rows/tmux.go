package rows

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sotcomm/sotd/home"
)

// Tmux runs rows as sessions of a private tmux server (tmux 3.2 or later; 3.3
// also names the signal that ended an agent). The server, not the daemon, is
// the agents' parent, so rows outlive the daemon.
type Tmux struct {
	opt Options
	srv tmuxServer
	dir string

	mu      sync.Mutex
	rows    map[string]*tmuxRow   // rows this backend started or has seen
	removed map[string]bool       // ids removed in this run: Terminal
	watches map[string]*tmuxWatch // by row id: its control client (tmux_watch.go)
	closed  bool                  // Close has stopped the watches: no more start
}

// tmuxRow is what one daemon run keeps of a row beyond what tmux keeps.
type tmuxRow struct {
	write   sync.Mutex // serializes Input and Stop on the row
	started time.Time
	ending  bool // guarded by Tmux.mu
}

// NewTmux is the tmux backend on the home's private socket for box host. It
// fails only when no tmux binary is on PATH; the server starts with the first row.
func NewTmux(h home.Home, host string, opt Options) (*Tmux, error) {
	bin, err := exec.LookPath("tmux")
	if err != nil {
		return nil, fmt.Errorf("no tmux on PATH (%w); install tmux or use the built-in PTY backend", err)
	}
	return newTmux(h, host, bin, opt), nil
}

func newTmux(h home.Home, host, bin string, opt Options) *Tmux {
	dir := filepath.Dir(TmuxSocket(h, host))
	return &Tmux{
		opt:     opt.withDefaults(),
		srv:     tmuxServer{bin: bin, socket: TmuxSocket(h, host)},
		dir:     dir,
		rows:    map[string]*tmuxRow{},
		removed: map[string]bool{},
		watches: map[string]*tmuxWatch{},
	}
}

// TmuxSocket is the socket of the private tmux server that runs box host's
// rows in h, for a client that attaches a terminal to one of them.
func TmuxSocket(h home.Home, host string) string {
	return filepath.Join(h.RunDir(host), "tmux", "rows.sock")
}

// Name implements Backend.
func (t *Tmux) Name() string { return "tmux" }

// Socket is the private server's socket, for a person who wants to look:
// tmux -S <socket> attach -t <row id>.
func (t *Tmux) Socket() string { return t.srv.socket }

// serverSetup makes every row's pane behave the same whatever tmux's defaults:
// a dead pane stays (so an exited agent reads as Stopped, its last screen kept),
// no status line takes a row of the screen, the detach key always detaches,
// and no row inherits a row identity from the environment of the daemon that
// started the server.
//
// tmux takes keys it handles less than assume-paste-time (1 ms) apart for
// pasted text and types them into the pane, past its key bindings: a line and
// C-b d handled back to back (one read of a fast typist's keys or of an ssh
// link's, or keys queued on a busy server) sent ^B d to the agent, where
// Claude Code takes Ctrl-B to send a running command to the background, and
// left the person attached. No one pastes a C-b.
func serverSetup() [][]string {
	cmds := [][]string{
		{"start-server"},
		{"set-option", "-g", "remain-on-exit", "on"},
		{"set-option", "-g", "status", "off"},
		{"set-option", "-g", "assume-paste-time", "0"},
	}
	for _, k := range identityEnv {
		cmds = append(cmds, []string{"set-environment", "-g", "-u", k})
	}
	return cmds
}

// Start implements Backend.
func (t *Tmux) Start(spec Spec) (RowInfo, error) {
	spec, err := spec.normalize()
	if err != nil {
		return RowInfo{}, err
	}
	// The PTY's exec refuses a missing program; tmux would start the row and
	// show it Stopped with status 127. Both refuse it alike.
	if err := findProgram(spec.Argv[0], spec.Cwd); err != nil {
		return RowInfo{}, fmt.Errorf("start row %s: no program %q to run: %w", spec.ID, spec.Argv[0], err)
	}
	if err := home.MkdirPrivate(t.dir); err != nil {
		return RowInfo{}, err
	}
	// The spec's environment may hold secrets (an API key): it is kept out of
	// the spec tmux stores, which any client of the server reads back.
	kept := spec
	kept.Env = nil
	stored, err := json.Marshal(kept)
	if err != nil {
		return RowInfo{}, fmt.Errorf("encode the spec of row %s: %w", spec.ID, err)
	}
	envFile, err := t.writeEnv(spec)
	if err != nil {
		return RowInfo{}, err
	}
	cols, rows := spec.size(t.opt)
	newSession := []string{"new-session", "-d", "-s", spec.ID,
		"-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows)}
	if spec.Cwd != "" {
		newSession = append(newSession, "-c", tmuxFormatText(spec.Cwd))
	}
	for _, kv := range spec.rowEnv() {
		if isIdentity(kv) {
			newSession = append(newSession, "-e", kv)
		}
	}
	// tmux hands a one-word command to sh -c, which would split a path with a
	// space in it; this exec keeps argv exactly as given, whatever its length,
	// and leaves no shell behind. First the shell reads the row's environment
	// from envFile and removes it: given with -e, every value would stay on
	// the command line of the tmux server this client starts, which every
	// local account can read in /proc for as long as the server runs.
	newSession = append(newSession, "--", "/bin/sh", "-c", `. "$1" && rm -f -- "$1" && shift && exec "$0" "$@"`, spec.Argv[0], envFile)
	newSession = append(newSession, spec.Argv[1:]...)

	cmds := append(serverSetup(), newSession,
		// The window keeps its size when a person attaches. Set per window: tmux
		// 3.3a's server crashes making a session under a global "manual".
		[]string{"set-option", "-t", target(spec.ID), "window-size", "manual"},
		[]string{"set-option", "-t", target(spec.ID), "@sot_spec", string(stored)},
		[]string{"display-message", "-p", "-t", target(spec.ID), paneFormat})

	var path []string
	for _, kv := range spec.rowEnv() {
		if strings.HasPrefix(kv, "PATH=") {
			path = []string{kv}
		}
	}
	out, err := t.srv.runWith(path, cmds...)
	if err != nil {
		os.Remove(envFile)
		if !errors.Is(err, ErrRowExists) {
			// A session made before a later command failed has no spec and
			// would stay a stray no daemon owns.
			_, _ = t.srv.run([]string{"kill-session", "-t", target(spec.ID)})
		}
		return RowInfo{}, fmt.Errorf("start row %s: %w", spec.ID, err)
	}
	p, err := parsePane(lastLine(out))
	if err != nil {
		return RowInfo{}, fmt.Errorf("start row %s: %w", spec.ID, err)
	}
	t.mu.Lock()
	delete(t.removed, spec.ID)
	t.rows[spec.ID] = &tmuxRow{started: t.opt.Now()}
	t.mu.Unlock()
	t.watch(spec.ID)
	return t.info(p), nil
}

// writeEnv writes the environment spec's row adds to the server's, less its
// identity (given with -e: no secret), as shell assignments the row's shell
// reads once and removes: a 0600 file in the server's private folder, never
// on a command line.
func (t *Tmux) writeEnv(spec Spec) (string, error) {
	var b strings.Builder
	for _, kv := range spec.rowEnv() {
		if !isIdentity(kv) {
			k, v, _ := strings.Cut(kv, "=")
			b.WriteString("export " + k + "='" + strings.ReplaceAll(v, "'", `'\''`) + "'\n")
		}
	}
	path := t.envFile(spec.ID)
	os.Remove(path) // a crashed start's; the row id is this start's
	if err := home.WriteNew(path, []byte(b.String()), func(*os.File) error { return nil }); err != nil {
		return "", fmt.Errorf("start row %s: write its environment to %s: %w", spec.ID, path, err)
	}
	return path, nil
}

// envFile is where row id's environment waits for its shell.
func (t *Tmux) envFile(id string) string { return filepath.Join(t.dir, id+".env") }

// Info implements Backend.
func (t *Tmux) Info(id string) (RowInfo, error) {
	p, err := t.pane(id)
	if err != nil {
		if errors.Is(err, ErrNoRow) && t.isRemoved(id) {
			return RowInfo{Spec: Spec{ID: id}, Backend: t.Name(), Phase: Terminal}, nil
		}
		return RowInfo{}, t.gone(id, err)
	}
	return t.info(p), nil
}

func (t *Tmux) isRemoved(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.removed[id]
}

// gone words a failed tmux call on a row, saying when the row was removed.
func (t *Tmux) gone(id string, err error) error {
	switch {
	case errors.Is(err, ErrNoRow) && t.isRemoved(id):
		return fmt.Errorf("row %s was removed; it is Terminal: %w", id, ErrNoRow)
	case errors.Is(err, ErrNoRow):
		return fmt.Errorf("no row %s on the tmux server at %s: %w", id, t.srv.socket, ErrNoRow)
	}
	return fmt.Errorf("row %s: %w", id, err)
}

func (t *Tmux) pane(id string) (pane, error) {
	if err := CheckID(id); err != nil {
		return pane{}, err
	}
	p, err := t.srv.pane(id)
	if err == nil && p.dead && !p.reaped {
		t.srv.reap()
		p, err = t.srv.pane(id)
	}
	if errors.Is(err, errNoServer) {
		return pane{}, ErrNoRow
	}
	if err != nil {
		return pane{}, err
	}
	if !p.ours {
		return pane{}, fmt.Errorf("session %s on %s was not started by a daemon (it has no row spec): %w", id, t.srv.socket, ErrNoRow)
	}
	return p, nil
}

// List implements Backend.
func (t *Tmux) List() ([]RowInfo, error) {
	panes, err := t.panes()
	if err != nil {
		return nil, err
	}
	out := make([]RowInfo, 0, len(panes))
	for _, p := range panes {
		out = append(out, t.info(p))
	}
	return out, nil
}

// panes lists the daemon-started sessions, one pane each, sorted by id.
func (t *Tmux) panes() ([]pane, error) {
	panes, err := t.srv.panes()
	if err == nil && slices.ContainsFunc(panes, func(p pane) bool { return p.dead && !p.reaped }) {
		t.srv.reap()
		panes, err = t.srv.panes()
	}
	if errors.Is(err, errNoServer) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list rows: %w", err)
	}
	return panes, nil
}

// Discover implements Backend: every row on the private socket is taken on,
// its start time read from tmux, and watched from now on.
func (t *Tmux) Discover() ([]RowInfo, error) {
	found, err := t.List()
	for _, r := range found {
		t.watch(r.Spec.ID)
	}
	return found, err
}

// rowLocked is the run's record of a row, made for a row found on the socket.
func (t *Tmux) rowLocked(p pane) *tmuxRow {
	r, ok := t.rows[p.id]
	if !ok {
		r = &tmuxRow{started: p.created}
		t.rows[p.id] = r
	}
	return r
}

// info is the row as tmux shows it and this run knows it. The lock is not held
// across the capture a young row may need.
func (t *Tmux) info(p pane) RowInfo {
	t.mu.Lock()
	r := t.rowLocked(p)
	started, ending := r.started, r.ending
	t.mu.Unlock()
	info := RowInfo{Spec: p.spec, Backend: t.Name(), Pid: p.pid, Started: started}
	switch {
	case ending:
		info.Phase = Ending
	case p.exited():
		info.Phase = Stopped
		info.ExitCode = p.exitCode
	case t.opt.Now().Sub(started) < StartingFor && t.blank(p.id):
		info.Phase = Starting
	default:
		info.Phase = Ready
	}
	return info
}

// blank reports whether the row's pane shows nothing yet. Only a row younger
// than StartingFor is asked, so the capture is rare.
func (t *Tmux) blank(id string) bool {
	out, err := t.srv.run([]string{"capture-pane", "-p", "-t", target(id)})
	return err == nil && strings.TrimSpace(string(out)) == ""
}

// Close implements Backend. The rows keep running in the tmux server, for the
// next daemon to Discover; only their watches end.
func (t *Tmux) Close() error {
	t.mu.Lock()
	t.closed = true
	watches := t.watches
	t.watches = map[string]*tmuxWatch{}
	t.mu.Unlock()
	for _, w := range watches {
		w.stop()
	}
	return nil
}

// findProgram checks that argv0 names a program as exec would find it: on
// PATH when it is a bare name, else as a path, relative ones from the row's
// folder.
func findProgram(argv0, cwd string) error {
	if !strings.ContainsRune(argv0, filepath.Separator) || filepath.IsAbs(argv0) || cwd == "" {
		_, err := exec.LookPath(argv0)
		return err
	}
	_, err := exec.LookPath(filepath.Join(cwd, argv0))
	return err
}

func lastLine(out []byte) string {
	s := strings.TrimRight(string(out), "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
