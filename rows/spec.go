package rows

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/home"
)

// Agent names the program a row runs; only a Claude or Codex row is ever typed
// into by the wake.
type Agent = ancestry.Agent

const (
	Claude       = ancestry.Claude
	Codex        = ancestry.Codex
	Other  Agent = "other"
)

// Spec is what a row is started with. A backend keeps it with the row, so a
// restarted daemon knows each discovered row's label, handle and agent.
type Spec struct {
	ID     string   `json:"id"` // "" lets Start make one: ws-<random>
	Label  string   `json:"label"`
	Handle string   `json:"handle,omitempty"` // the comm handle the row's agent acts as
	Agent  Agent    `json:"agent"`
	Cwd    string   `json:"cwd,omitempty"`
	Argv   []string `json:"argv"`
	Env    []string `json:"env,omitempty"` // KEY=VALUE added to the daemon's environment
	// Cols and Rows size the row's terminal; 0 takes Options.Cols and Rows.
	Cols int `json:"cols,omitempty"`
	Rows int `json:"rows,omitempty"`
}

// A row's terminal is at least MinCols x MinRows and at most MaxSide each way.
const (
	MinCols = 20
	MinRows = 5
	MaxSide = 1000
)

// size is the row's terminal size: the spec's, else the backend's.
func (s Spec) size(o Options) (cols, rows int) {
	cols, rows = o.Cols, o.Rows
	if s.Cols > 0 {
		cols = s.Cols
	}
	if s.Rows > 0 {
		rows = s.Rows
	}
	return cols, rows
}

// ErrBadSpec is wrapped by every refusal of a Spec.
var ErrBadSpec = errors.New("bad row spec")

// MaxID is the longest row id.
const MaxID = 64

// idPrefix starts every row id, as the protocol's ws-… does.
const idPrefix = "ws-"

// NewID makes a row id: ws- and ten random characters of [a-z2-7] (50 bits).
func NewID() string {
	// 32 letters, so a random byte maps onto them without bias.
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	b := make([]byte, 10)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("rows: the system's random source failed: %v", err))
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return idPrefix + string(b)
}

// CheckID accepts 1–64 characters of [A-Za-z0-9_-]. A '.' or ':' would be read
// by tmux as a window or pane in a target, and a '/' could leave a folder.
func CheckID(id string) error {
	if id == "" || len(id) > MaxID {
		return fmt.Errorf("%w: row id %q must be 1 to %d characters", ErrBadSpec, id, MaxID)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("%w: row id %q has %q at byte %d; an id is letters, digits, '-' and '_'", ErrBadSpec, id, c, i)
		}
	}
	return nil
}

// normalize fills the defaults (an id, the agent its command names, else
// "other", the label from the folder) and refuses what no backend can start.
func (s Spec) normalize() (Spec, error) {
	if s.ID == "" {
		s.ID = NewID()
	}
	if err := CheckID(s.ID); err != nil {
		return s, err
	}
	switch s.Agent {
	case "":
		// A row is typed into only as a Claude or Codex row, so a claude started
		// without --agent must still be known as one.
		s.Agent = ancestry.AgentOf(s.Argv)
		if s.Agent == "" {
			s.Agent = Other
		}
	case Claude, Codex, Other:
	default:
		return s, fmt.Errorf("%w: agent %q is not claude, codex or other", ErrBadSpec, s.Agent)
	}
	if s.Agent == Codex {
		s.Argv = codexArgs(s.Argv)
	}
	if s.Handle != "" {
		if err := home.CheckHandle(s.Handle); err != nil {
			return s, fmt.Errorf("%w: %w", ErrBadSpec, err)
		}
	}
	if !sizeOK(s.Cols, MinCols) || !sizeOK(s.Rows, MinRows) {
		return s, fmt.Errorf("%w: row %s's terminal of %dx%d is not between %dx%d and %dx%d (0 takes the daemon's size)", ErrBadSpec, s.ID, s.Cols, s.Rows, MinCols, MinRows, MaxSide, MaxSide)
	}
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return s, fmt.Errorf("%w: row %s has no command to run; give one after --", ErrBadSpec, s.ID)
	}
	for _, kv := range s.Env {
		if err := CheckEnv(kv); err != nil {
			return s, fmt.Errorf("%w: %w", ErrBadSpec, err)
		}
	}
	if s.Cwd != "" {
		abs, err := filepath.Abs(s.Cwd)
		if err != nil {
			return s, fmt.Errorf("%w: folder %q: %w", ErrBadSpec, s.Cwd, err)
		}
		// tmux would start the row in another folder rather than fail.
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return s, fmt.Errorf("%w: the row's folder %s is not a folder that exists", ErrBadSpec, abs)
		}
		s.Cwd = abs
	}
	if s.Label == "" && s.Cwd != "" {
		s.Label = filepath.Base(s.Cwd)
	}
	return s, nil
}

// sizeOK accepts 0 (the backend's size) or a side from min to MaxSide.
func sizeOK(n, min int) bool { return n == 0 || n >= min && n <= MaxSide }

// NoDaemon is the Codex flag that keeps a session's work in its own process.
// Without it, an interactive codex (and its resume and fork) hands the session
// to a shared `codex app-server --managed-daemon` in a session of its own, and
// the hooks run as that server's children: outside the row (the agent-layer
// check refuses them), with the environment of the row that started the server
// (a second row sharing CODEX_HOME would act as the first row's handle), and
// under pid 1 once that row is gone. Codex 0.171 takes it before a subcommand.
const NoDaemon = "--no-daemon"

// NoLoginShell is the Codex setting that runs its shell tool's commands in a
// plain shell, never a login shell, so they keep the row's PATH. By default a
// command whose call leaves out `login` (as a model's calls do) runs in a login
// shell, whose profile resets PATH (Debian's /etc/profile sets it outright) and
// drops the comm home's bin/: comm-poll.sh, the command the wake's notice
// names, then fails "command not found" (exit 127), as the real Codex 0.171
// showed. The notice's words are fixed by the protocol, so the row's shell
// keeps the PATH instead.
const NoLoginShell = "allow_login_shell=false"

// codexArgs is a Codex command line with NoDaemon and `-c NoLoginShell` added
// right after the program (codex, or a node host and codex's script), each
// unless it is there already: Codex refuses --no-daemon twice, and a person's
// own allow_login_shell is theirs. A command line whose program is not codex (a
// shell, a wrapper) is left as given; the hooks say so if its sessions end up
// under the shared server.
func codexArgs(argv []string) []string {
	n := 1
	for n <= len(argv) && ancestry.AgentOf(argv[:n]) != Codex {
		n++
	}
	if n > len(argv) {
		return argv
	}
	noDaemon, login := true, true
	for _, a := range argv[n:] {
		if a == "--" {
			break
		}
		noDaemon = noDaemon && a != NoDaemon
		login = login && !strings.Contains(a, "allow_login_shell")
	}
	var add []string
	if noDaemon {
		add = append(add, NoDaemon)
	}
	if login {
		add = append(add, "-c", NoLoginShell)
	}
	return slices.Concat(argv[:n], add, argv[n:])
}

// CheckEnv accepts one entry of a row's environment: KEY=VALUE, KEY a
// variable name a shell can read ([A-Za-z_][A-Za-z0-9_]*), nothing in it a NUL
// (the system's environment cannot carry one), and KEY none of the variables
// that say which row and handle the row is: those come from the row itself.
func CheckEnv(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return fmt.Errorf("environment entry %q is not KEY=VALUE", kv)
	}
	if !isEnvName(k) {
		return fmt.Errorf("environment entry %q: %q is not a variable name (letters, digits and '_', not starting with a digit)", kv, k)
	}
	if strings.IndexByte(v, 0) >= 0 {
		return fmt.Errorf("the value of %s holds a NUL byte, which no environment can carry", k)
	}
	if slices.Contains(identityEnv, k) {
		return fmt.Errorf("%s is the row's own id or handle, which the daemon sets; give a handle with --handle", k)
	}
	return nil
}

func isEnvName(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return k != ""
}

// identityEnv are the variables that say which row and handle a process is.
// A row gets them from its spec alone: never from the spec's Env, and never
// from the daemon's own environment (a daemon started inside a row has them).
var identityEnv = []string{home.EnvWorkspaceID, home.EnvName}

func isIdentity(kv string) bool {
	k, _, _ := strings.Cut(kv, "=")
	return slices.Contains(identityEnv, k)
}

// rowEnv is what the row adds to the daemon's environment: the spec's entries,
// then the row's identity.
func (s Spec) rowEnv() []string {
	env := make([]string, 0, len(s.Env)+2)
	for _, kv := range s.Env {
		if !isIdentity(kv) {
			env = append(env, kv)
		}
	}
	env = append(env, home.EnvWorkspaceID+"="+s.ID)
	if s.Handle != "" {
		env = append(env, home.EnvName+"="+s.Handle)
	}
	return env
}
