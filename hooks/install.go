package hooks

import (
	"bytes"
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

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/home"
)

// Agent is an agent whose hooks `sotd hooks install` writes.
type Agent = ancestry.Agent

const (
	Claude = ancestry.Claude
	Codex  = ancestry.Codex
)

// Agents is every agent sotd installs for; each one's name is its program's.
var Agents = []Agent{Claude, Codex}

// hookSpec is one hook sotd installs: the agent's event, its tool matcher ("" for
// every tool, or an event that takes none) and the `sotd hook` arguments.
// rewake marks Claude Code's doorbell, `sotd hook wait`: an asyncRewake hook,
// which Claude Code runs in the background and which wakes the model when it
// exits 2, with a timeout above the waiter's life. arm marks the FileChanged
// hook whose matcher is the re-arm file (armMatcher), filled in at install.
type hookSpec struct {
	event   string
	matcher string
	args    string
	rewake  bool
	arm     bool
}

// specs are the hooks each agent gets. Claude Code: the turn's start and end,
// AskUserQuestion and the subagent guard (Bash and the sot-comm MCP tools)
// before a tool, the heartbeat after any, and the rewake waiter at the
// session's start, at each turn end and when the re-arm file changes (see Wait).
// Codex: the same, but its dialog is a PermissionRequest hook and its heartbeat
// also clears that dialog; its PreToolUse guard acts wherever Codex gives a
// subagent's hook an agent_id; its doorbell is a detached waiter that the
// session's start and each turn end start (see WaitCodex).
var specs = map[Agent][]hookSpec{
	Claude: {
		{event: "UserPromptSubmit", args: "prompt"},
		{event: "PreToolUse", matcher: "Bash|AskUserQuestion|" + mcpTools + ".*", args: "pretool"},
		{event: "PostToolUse", args: "posttool"},
		{event: "Stop", args: "stop"},
		{event: "SessionStart", args: "wait", rewake: true},
		{event: "Stop", args: "wait", rewake: true},
		{event: "FileChanged", args: "wait", rewake: true, arm: true},
	},
	Codex: {
		{event: "UserPromptSubmit", args: "prompt"},
		{event: "PreToolUse", matcher: "Bash", args: "pretool"},
		{event: "PermissionRequest", args: "permission"},
		{event: "PostToolUse", args: "posttool --codex"},
		{event: "Stop", args: "stop"},
		{event: "SessionStart", args: "wait --codex"},
		{event: "Stop", args: "wait --codex"},
	},
}

// specsFor is an agent's specs with the re-arm matcher of the comm home h.
func specsFor(a Agent, h home.Home) []hookSpec {
	out := append([]hookSpec(nil), specs[a]...)
	for i := range out {
		if out[i].arm {
			out[i].matcher = armMatcher(h)
		}
	}
	return out
}

// armMatcher is the FileChanged matcher of the re-arm file. Claude Code reads
// each |-separated part as a path to watch (relative to the session's folder
// unless absolute) and the whole as a regular expression the changed file's
// base name must match: the absolute path is the file watched, the bare name
// is what matches it (and watches a file of that name in the session's
// folder, which does no harm: a waiter it starts only takes over).
func armMatcher(h home.Home) string { return ArmName + "|" + ArmPath(h) }

// handler is the hook object sotd writes for sp running command, its keys in
// the order written.
func (sp hookSpec) handler(command string) object {
	h := object{}
	h.put("command", command)
	h.put("type", "command")
	if sp.rewake {
		h.put("asyncRewake", true)
		h.put("timeout", waitTimeout)
	}
	return h
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
// Either is the same for one executable however it was started: Codex trusts a
// hook by its command, so a command that changed would need review again.
func SotdCommand() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("this sotd's own path is unknown (%v)", err)
	}
	if p, err := exec.LookPath("sotd"); err == nil && home.SameFile(p, exe) {
		return "sotd", nil
	}
	// Some systems name the executable by the link it was started through: the
	// file it names keeps the command, and Codex's trust in it, the same however
	// this sotd was started.
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	return shellQuote(exe), nil
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
// settings file, merge-only, and the instructions that teach the agent sot-comm
// beside it (InstructionsPath). Every other key and hook stays as it was, in its
// order; the comm-*.sh shims go into the comm home's bin/ (see shimVerbs). A
// sotd hook already there with the same command is left alone (so a
// second run changes nothing), one that runs another sotd or matches other
// tools is brought up to date. Before the first change to an existing settings
// file or AGENTS.md its bytes are kept beside it as <file>.bak.<time>. A file
// that is a symlink is edited where it points. It prints what changed.
type Install struct {
	Agent    Agent
	Settings string    // the file; "" is SettingsPath(Agent)
	Sotd     string    // the command that runs sotd; "" is SotdCommand()
	Home     home.Home // where the shims go (bin/); "" is home.Resolve()
	// NoPermissions leaves out the rules that let the agent run the mail verbs
	// with no approval (Claude Code's allow rules, Codex's rules file), and
	// takes out those an earlier install added: see PermissionRules, CodexRules.
	NoPermissions bool
	Out           io.Writer
	Now           func() time.Time
}

// change is what Install did for one hook.
type change struct {
	spec    hookSpec
	command string
	did     string // added, updated or unchanged (Uninstall: removed)
	was     string // for updated: the command and matcher replaced
}

// Run does the install and returns the exit code: 0, or 1 when a file could
// not be read, parsed or written.
func (in Install) Run() int {
	return report(in.Out, in.run())
}

func report(out io.Writer, err error) int {
	if err != nil {
		fmt.Fprintf(out, "FAILED: %v\n", err)
		return ExitFailed
	}
	return ExitOK
}

// settingsFile resolves the settings path (absolute, as given) and the file it
// names through any symlink.
func settingsFile(a Agent, given string) (shown, path string, err error) {
	if given == "" {
		if given, err = SettingsPath(a); err != nil {
			return "", "", err
		}
	}
	if given, err = filepath.Abs(given); err != nil {
		return "", "", err
	}
	path = given
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	return given, path, nil
}

func (in Install) run() error {
	shown, path, err := settingsFile(in.Agent, in.Settings)
	if err != nil {
		return fmt.Errorf("%v; nothing was changed", err)
	}
	if in.Sotd == "" {
		if in.Sotd, err = SotdCommand(); err != nil {
			return fmt.Errorf("%v; nothing was changed", err)
		}
	}
	old, mode, err := readFile(path)
	if err != nil {
		return fmt.Errorf("%v; nothing was changed", err)
	}
	if in.Home.Dir == "" {
		if in.Home, err = home.Resolve(); err != nil {
			return fmt.Errorf("%v; nothing was changed", err)
		}
	}
	body, changes, err := merge(old, specsFor(in.Agent, in.Home), in.Sotd, path)
	if err != nil {
		return fmt.Errorf("%v; nothing was changed", err)
	}
	hooks := edit{path: path, old: old, mode: mode, body: old, keep: true, say: header(shown)}
	for _, c := range changes {
		hooks.say += said(c)
		if c.did != unchanged {
			hooks.body = body
		}
	}
	if in.Agent == Claude {
		var line string
		if hooks.body, line, err = permitted(hooks.body, !in.NoPermissions, path); err != nil {
			return fmt.Errorf("%v; nothing was changed", err)
		}
		hooks.say += line
	}
	teach, err := in.teach(shown)
	if err != nil {
		return fmt.Errorf("%v; nothing was changed", err)
	}
	edits := []edit{hooks, teach}
	if in.Agent == Claude {
		reg, err := in.register(shown)
		if err != nil {
			return fmt.Errorf("%v; nothing was changed", err)
		}
		edits = append(edits, reg)
	}
	if in.Agent == Codex {
		rules, err := codexRulesEdit(shown, !in.NoPermissions)
		if err != nil {
			return fmt.Errorf("%v; nothing was changed", err)
		}
		edits = append(edits, rules)
	}
	changed := apply(in.Out, edits, in.Now(), &err)
	if err != nil {
		return err
	}
	say, shims, err := installShims(in.Home, in.Agent, in.Sotd)
	fmt.Fprint(in.Out, say)
	if err != nil {
		if changed {
			return fmt.Errorf("%v; the hooks and instructions above were written", err)
		}
		return err
	}
	if !changed && !shims {
		fmt.Fprintln(in.Out, "nothing changed: every sotd hook, the instructions and the shims are already installed")
	}
	fmt.Fprint(in.Out, pathAdvice(in.Home.BinDir()))
	fmt.Fprint(in.Out, permissionsAdvice(in.Agent, shown, !in.NoPermissions))
	if in.Agent == Codex {
		fmt.Fprint(in.Out, codexAdvice(shown))
	}
	return nil
}

// teach is the edit that puts the instructions in place.
func (in Install) teach(settings string) (edit, error) {
	path := InstructionsPath(in.Agent, settings)
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	old, mode, err := readFile(path)
	if err != nil {
		return edit{}, err
	}
	body, err := taught(in.Agent, old, path)
	if err != nil {
		return edit{}, err
	}
	did := added
	switch {
	case bytes.Equal(body, old):
		did = unchanged
	case in.Agent == Claude && old != nil, in.Agent == Codex && bytes.Contains(old, []byte(beginMark)):
		did = updated
	}
	return edit{path: path, old: old, mode: mode, body: body, keep: in.Agent == Codex,
		say: header(path) + fmt.Sprintf("  %-10s %s\n", did, instructionsName(in.Agent))}, nil
}

// register is the edit that registers `sotd mcp` with Claude Code.
func (in Install) register(settings string) (edit, error) {
	path := ClaudeJSONPath(settings)
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	old, mode, err := readFile(path)
	if err != nil {
		return edit{}, err
	}
	sotd := in.Sotd
	if words, ok := simpleCommand(in.Sotd); ok && len(words) == 1 {
		sotd = words[0] // the JSON names the program itself, unquoted
	}
	body, did, err := registered(old, sotd, path)
	if err != nil {
		return edit{}, err
	}
	return edit{path: path, old: old, mode: mode, body: body, keep: true,
		say: header(path) + fmt.Sprintf("  %-10s MCP server %s: %s mcp\n", did, mcpName, sotd)}, nil
}

func instructionsName(a Agent) string {
	if a == Codex {
		return "the sot-comm section"
	}
	return "the sot-comm skill"
}

func header(path string) string { return path + ":\n" }

// said is one hook's line of the report.
func said(c change) string {
	on := c.spec.event
	if c.spec.matcher != "" {
		on += " (" + c.spec.matcher + ")"
	}
	line := fmt.Sprintf("  %-10s %s: %s", c.did, on, c.command)
	if c.was != "" {
		line += fmt.Sprintf(" (was: %s)", c.was)
	}
	return line + "\n"
}

// Uninstall is `sotd hooks uninstall`: it takes out of the agent's settings the
// hooks Install adds, every other key and hook staying, and removes the
// instructions Install wrote (the skill, or AGENTS.md's section), and the shims
// once no other agent's install uses them. A settings
// file whose only change since the install is sotd's hooks gets its bytes back
// from the backup Install kept, so it is byte for byte what it was; a file that
// Install created and that holds nothing else is removed. Before changing a
// settings file or AGENTS.md it keeps a backup, as Install does.
type Uninstall struct {
	Agent    Agent
	Settings string    // the file; "" is SettingsPath(Agent)
	Home     home.Home // where the shims are (bin/); "" is home.Resolve()
	Out      io.Writer
	Now      func() time.Time
}

// Run does the uninstall and returns the exit code, as Install's does.
func (un Uninstall) Run() int {
	return report(un.Out, un.run())
}

func (un Uninstall) run() error {
	shown, path, err := settingsFile(un.Agent, un.Settings)
	if err != nil {
		return fmt.Errorf("%v; nothing was changed", err)
	}
	old, mode, err := readFile(path)
	if err != nil {
		return fmt.Errorf("%v; nothing was changed", err)
	}
	hooks := edit{path: path, old: old, mode: mode, body: old, say: header(shown)}
	if old != nil {
		body, say, err := unmergeAll(old, un.Agent, path)
		if err != nil {
			return fmt.Errorf("%v; nothing was changed", err)
		}
		hooks.say += say
		if say != "" {
			if hooks.body, err = restored(path, body, un.Agent); err != nil {
				return fmt.Errorf("%v; nothing was changed", err)
			}
			// A file Install made is removed with no backup: it held only sotd's hooks.
			hooks.keep = hooks.body != nil
		}
	}
	ipath := InstructionsPath(un.Agent, shown)
	if p, err := filepath.EvalSymlinks(ipath); err == nil {
		ipath = p
	}
	iold, imode, err := readFile(ipath)
	if err != nil {
		return fmt.Errorf("%v; nothing was changed", err)
	}
	body, held, err := untaught(un.Agent, iold, ipath)
	if err != nil {
		return fmt.Errorf("%v; nothing was changed", err)
	}
	teach := edit{path: ipath, old: iold, mode: imode, body: body, keep: un.Agent == Codex && body != nil}
	if held {
		teach.say = header(ipath) + fmt.Sprintf("  %-10s %s\n", removed, instructionsName(un.Agent))
	}
	if un.Agent == Claude {
		teach.prune = filepath.Dir(filepath.Dir(filepath.Dir(ipath)))
	}
	if un.Home.Dir == "" {
		if un.Home, err = home.Resolve(); err != nil {
			return fmt.Errorf("%v; nothing was changed", err)
		}
	}
	edits := []edit{hooks, teach}
	if un.Agent == Claude {
		path := ClaudeJSONPath(shown)
		if p, err := filepath.EvalSymlinks(path); err == nil {
			path = p
		}
		old, mode, err := readFile(path)
		if err != nil {
			return fmt.Errorf("%v; nothing was changed", err)
		}
		body, held, err := unregistered(old, path)
		if err != nil {
			return fmt.Errorf("%v; nothing was changed", err)
		}
		if held {
			edits = append(edits, edit{path: path, old: old, mode: mode, body: body, keep: body != nil,
				say: header(path) + fmt.Sprintf("  %-10s MCP server %s\n", removed, mcpName)})
		}
	}
	if un.Agent == Codex {
		rules, err := codexRulesEdit(shown, false)
		if err != nil {
			return fmt.Errorf("%v; nothing was changed", err)
		}
		edits = append(edits, rules)
	}
	changed := apply(un.Out, edits, un.Now(), &err)
	if err != nil {
		return err
	}
	say, err := uninstallShims(un.Home, un.Agent)
	fmt.Fprint(un.Out, say)
	if err != nil {
		return err
	}
	if !changed && say == "" {
		fmt.Fprintln(un.Out, "nothing changed: no sotd hook, instructions or shims are installed")
	}
	return nil
}

// unmergeAll is the settings file without what Install adds to it for the
// agent (its sotd hooks; Claude Code's allow rules), and the report's lines for
// what came out, "" when nothing did.
func unmergeAll(old []byte, a Agent, path string) ([]byte, string, error) {
	body, changes, err := unmerge(old, specs[a], path)
	if err != nil {
		return nil, "", err
	}
	var say string
	for _, c := range changes {
		say += said(c)
	}
	if a == Claude {
		var line string
		if body, line, err = permitted(body, false, path); err != nil {
			return nil, "", err
		}
		say += line
	}
	return body, say, nil
}

// restored is the settings file to write back: the newest backup that holds
// nothing of sotd's when it reads as body does (only formatting and what
// Install adds differ), so its bytes come back exactly; nil (remove the file)
// when there is no such backup and nothing but an empty object is left, as when
// Install made the file; else body.
func restored(path string, body []byte, a Agent) ([]byte, error) {
	baks, _ := filepath.Glob(globEscape(path) + ".bak.*")
	clean := false
	for i := len(baks) - 1; i >= 0; i-- {
		b, err := os.ReadFile(baks[i])
		if err != nil {
			continue
		}
		norm, say, err := unmergeAll(b, a, baks[i])
		if err != nil || say != "" {
			continue
		}
		clean = true
		if bytes.Equal(norm, body) {
			return b, nil
		}
	}
	if !clean && bytes.Equal(bytes.TrimSpace(body), []byte("{}")) {
		return nil, nil
	}
	return body, nil
}

// globEscape quotes a path's glob characters for filepath.Glob.
func globEscape(p string) string {
	return strings.NewReplacer("*", "[*]", "?", "[?]", "[", "[[]").Replace(p)
}

// edit is one file an install or uninstall changes, or leaves as it is.
type edit struct {
	path  string
	old   []byte // nil: the file does not exist
	mode  fs.FileMode
	body  []byte // nil: remove the file; old: leave it
	keep  bool   // a person's file: keep its old bytes in a backup first
	prune string // after a removal, remove the emptied folders up to this one, exclusive
	say   string // the report's lines for this file
}

func (e edit) noop() bool { return bytes.Equal(e.body, e.old) && (e.body == nil) == (e.old == nil) }

// apply prints each edit's lines and makes it, in order, and reports whether
// any changed a file. An edit that fails stops it, with *err saying which
// files were already changed.
func apply(out io.Writer, edits []edit, now time.Time, err *error) bool {
	var done []string
	for _, e := range edits {
		fmt.Fprint(out, e.say)
		if e.noop() {
			continue
		}
		if *err = e.make(out, now); *err != nil {
			if len(done) == 0 {
				*err = fmt.Errorf("%v; nothing was changed", *err)
			} else {
				*err = fmt.Errorf("%v; %s %s already changed", *err, strings.Join(done, " and "), plural(len(done), "was", "were"))
			}
			return true
		}
		done = append(done, e.path)
	}
	return len(done) > 0
}

func (e edit) make(out io.Writer, now time.Time) error {
	if e.keep && e.old != nil {
		bak, err := backup(e.path, e.old, e.mode, now)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "the file as it was is kept in %s\n", bak)
	}
	if e.body != nil {
		return writeSettings(e.path, e.body, e.mode)
	}
	if err := os.Remove(e.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s could not be removed (%v)", e.path, err)
	}
	for dir := filepath.Dir(e.path); e.prune != "" && dir != e.prune && strings.HasPrefix(dir, e.prune); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break // not empty: someone else's files live there
		}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// readFile is the file's bytes and mode; a file that does not exist is nil
// bytes, to be created.
func readFile(path string) ([]byte, fs.FileMode, error) {
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
