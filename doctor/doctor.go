package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/hooks"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/topology"
	"github.com/sotcomm/sotd/wire"
)

// Level is how a check came out.
type Level string

const (
	OK   Level = "ok"
	Warn Level = "warn" // works, but something is doubtful or missing; not a failure
	Fail Level = "fail" // broken: mail may not flow until it is fixed
)

// Check is one finding.
type Check struct {
	Name   string `json:"name"`
	Level  Level  `json:"level"`
	Detail string `json:"detail"`        // what was found
	Fix    string `json:"fix,omitempty"` // the sentence that fixes it; "" when nothing needs fixing
}

// Env is the box and home a run looks at.
type Env struct {
	Home      home.Home
	Host      string // this box's name
	HostsPath string // hosts.toml; "" when this OS names no place for one
	Socket    string // this box's daemon socket
	OSUser    string // said in the hello; "" when unknown
	GOOS      string
	Now       func() time.Time
	LookPath  func(string) (string, error)
	// HelloWait is how long the daemon has to answer hello and link.status:
	// what its own socket gives a client (wire.HelloWait), so a daemon that
	// is slow on a loaded box is not reported as no daemon.
	HelloWait time.Duration
	CodexHome string // where Codex keeps hooks.json and config.toml; "" when unknown
	// ClaudeSettings is Claude Code's settings.json; "" when unknown.
	ClaudeSettings string
	// Sotd is the command that runs this sotd, as an install writes it; "" is
	// hooks.SotdCommand().
	Sotd string
}

// Current is the Env of this process.
func Current() (Env, error) {
	h, err := home.Resolve()
	if err != nil {
		return Env{}, err
	}
	host := home.SelfHost()
	e := Env{Home: h, Host: host, Socket: h.Socket(host), GOOS: runtime.GOOS, Now: time.Now, LookPath: exec.LookPath, HelloWait: wire.HelloWait}
	if p, err := topology.Path(); err == nil {
		e.HostsPath = p
	}
	if u, err := user.Current(); err == nil {
		e.OSUser = u.Username
	}
	if p, err := hooks.SettingsPath(hooks.Codex); err == nil {
		e.CodexHome = filepath.Dir(p)
	}
	if p, err := hooks.SettingsPath(hooks.Claude); err == nil {
		e.ClaudeSettings = p
	}
	return e, nil
}

// Report is every check of one run, in the order they ran.
type Report struct {
	Healthy bool    `json:"healthy"` // no check failed
	Checks  []Check `json:"checks"`
}

// Run runs every check against e.
func Run(e Env) Report {
	doc, regErr := registry.Read(e.Home)
	hosts := loadHosts(e.HostsPath)
	d := askDaemon(e)
	checks := []Check{
		checkModes(e),
		checkRegistry(e, doc, regErr),
		checkRegistryLock(e),
		checkLockManager(e, hosts),
		checkHosts(e, hosts, doc),
		checkPins(e, hosts),
		checkDaemon(e, d),
		checkLinks(e, hosts, d.links, d.linksErr),
		checkTools(e),
		checkClock(e, doc),
		checkSkew(hosts, d.links, d.linksErr),
		checkClaims(hosts, d.links, d.linksErr),
		checkCodexHooks(e),
		checkCodexRules(e),
		checkCodexServer(e),
	}
	checks = append(checks, checkClaude(e)...)
	r := Report{Healthy: true, Checks: checks}
	for _, c := range checks {
		if c.Level == Fail {
			r.Healthy = false
		}
	}
	return r
}

// WriteText prints the report for a person: one line a check, its fix under
// it, then a verdict naming every failed check. The verdict is the line read
// last, so a healthy one counts the warnings above it: "healthy" alone would
// read as nothing to do.
func (r Report) WriteText(w io.Writer) {
	var failed []string
	warned := 0
	for _, c := range r.Checks {
		if c.Level == Warn {
			warned++
		}
		fmt.Fprintf(w, "%-4s  %-14s %s\n", strings.ToUpper(string(c.Level)), c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(w, "      %-14s fix: %s\n", "", c.Fix)
		}
		if c.Level == Fail {
			failed = append(failed, c.Name)
		}
	}
	switch {
	case r.Healthy && warned > 0:
		fmt.Fprintf(w, "healthy, %d %s (see WARN above)\n", warned, plural(warned, "warning", "warnings"))
		return
	case r.Healthy:
		fmt.Fprintln(w, "healthy")
		return
	}
	fmt.Fprintf(w, "%d %s: %s\n", len(failed), plural(len(failed), "problem", "problems"), strings.Join(failed, ", "))
}

// WriteJSON prints the report as one JSON object.
func (r Report) WriteJSON(w io.Writer) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
