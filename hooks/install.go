package hooks

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/sotcomm/sotd/home"
)

// Agent is an agent whose hooks `sotd hooks install` writes.
type Agent string

const (
	Claude Agent = "claude"
	Codex  Agent = "codex"
)

// hookSpec is one hook sotd installs: the agent's event, its tool matcher ("" for
// every tool, or an event that takes none) and the `sotd hook` arguments.
type hookSpec struct {
	event   string
	matcher string
	args    string
}

// specs are the hooks each agent gets. Claude Code: the turn's start and end,
// AskUserQuestion and the subagent guard before a tool, the heartbeat after any.
// Codex: the same, but its dialog is a PermissionRequest hook and its heartbeat
// also clears that dialog; its PreToolUse guard acts wherever Codex gives a
// subagent's hook an agent_id.
var specs = map[Agent][]hookSpec{
	Claude: {
		{"UserPromptSubmit", "", "prompt"},
		{"PreToolUse", "Bash|AskUserQuestion", "pretool"},
		{"PostToolUse", "", "posttool"},
		{"Stop", "", "stop"},
	},
	Codex: {
		{"UserPromptSubmit", "", "prompt"},
		{"PreToolUse", "Bash", "pretool"},
		{"PermissionRequest", "", "permission"},
		{"PostToolUse", "", "posttool --codex"},
		{"Stop", "", "stop"},
	},
}

// SettingsPath is where an agent reads its hooks: Claude Code's settings.json in
// $CLAUDE_CONFIG_DIR or ~/.claude, Codex's hooks.json in $CODEX_HOME or ~/.codex.
// Codex also reads [hooks] tables in config.toml; hooks.json is the form sotd can
// edit without rewriting a person's TOML and its comments.
func SettingsPath(a Agent) (string, error) {
	env, dir, file := "CLAUDE_CONFIG_DIR", ".claude", "settings.json"
	if a == Codex {
		env, dir, file = "CODEX_HOME", ".codex", "hooks.json"
	}
	if d := os.Getenv(env); d != "" {
		return filepath.Join(d, file), nil
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("the user's home is unknown (%v); give the file with --settings", err)
	}
	return filepath.Join(u, dir, file), nil
}

// SotdCommand is how a hook runs this sotd: "sotd" when that name on PATH is this
// executable, so the hooks outlive a reinstall elsewhere on PATH, else its path.
func SotdCommand() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("this sotd's own path is unknown (%v)", err)
	}
	if p, err := exec.LookPath("sotd"); err == nil && sameFile(p, exe) {
		return "sotd", nil
	}
	return shellQuote(exe), nil
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// shellQuote quotes a path for the shell an agent runs its hooks with.
func shellQuote(p string) string {
	if strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-:\\") == "" {
		return p
	}
	if runtime.GOOS == "windows" {
		return `"` + p + `"`
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// Install is `sotd hooks install`: it writes an agent's sotd hooks into its
// settings file, merge-only. Every other key and hook stays as it was, in its
// order; a sotd hook already there with the same command is left alone (so a
// second run changes nothing), one that runs another sotd or matches other
// tools is brought up to date. Before the first change to an existing file its
// bytes are kept beside it as <file>.bak.<time>. A file that is a symlink is
// edited where it points. It prints what changed.
type Install struct {
	Agent    Agent
	Settings string // the file; "" is SettingsPath(Agent)
	Sotd     string // the command that runs sotd; "" is SotdCommand()
	Out      io.Writer
	Now      func() time.Time
}

// change is what Install did for one hook.
type change struct {
	spec    hookSpec
	command string
	did     string // added, updated or unchanged
	was     string // for updated: the command and matcher replaced
}

// Run does the install and returns the exit code: 0, or 1 when the file could
// not be read, parsed or written (then nothing was changed).
func (in Install) Run() int {
	if err := in.run(); err != nil {
		fmt.Fprintf(in.Out, "FAILED: %v; nothing was changed\n", err)
		return ExitFailed
	}
	return ExitOK
}

func (in Install) run() error {
	var err error
	if in.Settings == "" {
		if in.Settings, err = SettingsPath(in.Agent); err != nil {
			return err
		}
	}
	if in.Sotd == "" {
		if in.Sotd, err = SotdCommand(); err != nil {
			return err
		}
	}
	if in.Settings, err = filepath.Abs(in.Settings); err != nil {
		return err
	}
	path := in.Settings
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	old, mode, err := readSettings(path)
	if err != nil {
		return err
	}
	body, changes, err := merge(old, specs[in.Agent], in.Sotd, path)
	if err != nil {
		return err
	}
	fmt.Fprintf(in.Out, "%s:\n", in.Settings)
	changed := false
	for _, c := range changes {
		on := c.spec.event
		if c.spec.matcher != "" {
			on += " (" + c.spec.matcher + ")"
		}
		fmt.Fprintf(in.Out, "  %-10s %s: %s", c.did, on, c.command)
		if c.was != "" {
			fmt.Fprintf(in.Out, " (was: %s)", c.was)
		}
		fmt.Fprintln(in.Out)
		changed = changed || c.did != unchanged
	}
	if !changed {
		fmt.Fprintln(in.Out, "nothing changed: every sotd hook is already installed")
		return nil
	}
	if old != nil {
		bak, err := backup(path, old, mode, in.Now())
		if err != nil {
			return err
		}
		fmt.Fprintf(in.Out, "the file as it was is kept in %s\n", bak)
	}
	if err := writeSettings(path, body, mode); err != nil {
		return err
	}
	if in.Agent == Codex {
		fmt.Fprintln(in.Out, "Codex runs a new hook only once you have reviewed and trusted it, and only with its hooks feature on.")
	}
	return nil
}

// readSettings is the file's bytes and mode; a file that does not exist is nil
// bytes, to be created.
func readSettings(path string) ([]byte, fs.FileMode, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, home.FileMode, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%s could not be read (%v)", path, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, fmt.Errorf("%s could not be read (%v)", path, err)
	}
	return b, fi.Mode().Perm(), nil
}

// backup keeps the settings' old bytes beside them, never over an older backup:
// a second change within one second gets the next free -<n> suffix.
func backup(path string, old []byte, mode fs.FileMode, now time.Time) (string, error) {
	base := path + ".bak." + now.UTC().Format("20060102T150405Z")
	for n := 1; ; n++ {
		bak := base
		if n > 1 {
			bak += fmt.Sprintf("-%d", n)
		}
		err := home.WriteNew(bak, old, (*os.File).Sync)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("the backup %s could not be written (%v)", bak, err)
		}
		if err := os.Chmod(bak, mode); err != nil {
			return "", fmt.Errorf("the backup %s could not be given the file's mode (%v)", bak, err)
		}
		return bak, nil
	}
}

// writeSettings replaces the file whole (a temp file renamed over it), keeping
// its mode; a new file is made with its folder.
func writeSettings(path string, body []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), home.DirMode); err != nil {
		return fmt.Errorf("%s could not be written (%v)", path, err)
	}
	if err := home.WriteAtomic(path, body); err != nil {
		return fmt.Errorf("%s could not be written (%v)", path, err)
	}
	if err := os.Chmod(path, mode); err != nil {
		return fmt.Errorf("%s was written but its mode could not be restored to %v (%v)", path, mode, err)
	}
	return nil
}
