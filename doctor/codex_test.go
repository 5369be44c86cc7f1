package doctor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/hooks"
)

// codexInstall installs sotd's Codex hooks, with --no-trust when noTrust.
func codexInstall(t *testing.T, codexHome, sotd string, noTrust bool) {
	t.Helper()
	var out strings.Builder
	in := hooks.Install{Agent: hooks.Codex, Settings: filepath.Join(codexHome, "hooks.json"), Sotd: sotd,
		Home: home.Home{Dir: filepath.Join(codexHome, "comm")}, NoTrust: noTrust, Out: &out, Now: time.Now}
	if code := in.Run(); code != hooks.ExitOK {
		t.Fatalf("install: %d %s", code, out.String())
	}
}

// trustAll records trust in config.toml as Codex's "Trust all" does.
func trustAll(t *testing.T, codexHome, extra string) {
	t.Helper()
	ct, err := hooks.ReadCodexTrust(filepath.Join(codexHome, "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, h := range ct.Hooks {
		fmt.Fprintf(&b, "[hooks.state.%q]\ntrusted_hash = %q\n\n", h.Key, h.Hash)
	}
	if err := os.WriteFile(ct.Config, []byte(b.String()+extra), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The codex hooks check: nothing to judge without sotd's hooks; installed but
// untrusted hooks, trust given to another command, a hook turned off and the
// hooks feature off are each named with what fixes them; trusted hooks pass.
func TestCheckCodexHooks(t *testing.T) {
	dir := t.TempDir()
	e := Env{CodexHome: dir}
	for _, step := range []struct {
		name   string
		do     func()
		level  Level
		detail []string
		fix    []string
	}{
		{"none installed", func() {}, OK, []string{"no sotd hook in " + dir}, nil},
		{"installed with --no-trust", func() { codexInstall(t, dir, "sotd", true) }, Warn,
			[]string{"installed but not trusted: UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, Stop"}, []string{"sotd hooks install --codex", `"Trust all and continue"`, "/hooks"}},
		{"trusted", func() { trustAll(t, dir, "") }, OK, []string{"7 sotd hooks in", "each trusted"}, nil},
		{"a reinstall of another sotd with --no-trust", func() { codexInstall(t, dir, "/opt/sotd/bin/sotd", true) }, Warn,
			[]string{"trust recorded for a different command: UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, Stop"}, []string{"sotd hooks install --codex"}},
		{"installed: trusted by the install", func() { codexInstall(t, dir, "sotd", false) }, OK, []string{"7 sotd hooks in", "each trusted"}, nil},
		{"a hook edited by hand after the install", func() {
			p := filepath.Join(dir, "hooks.json")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(b), `"command": "sotd hook stop",`, `"command": "sotd hook stop", "timeout": 5,`, 1)), 0o600)
		}, Warn, []string{"changed since sotd wrote them, and not trusted as they are now: Stop"}, []string{"If you meant the change", "sotd hooks uninstall --codex, then sotd hooks install --codex"}},
		{"turned off, feature off", func() {
			trustAll(t, dir, "[features]\nhooks = false\n")
			p := filepath.Join(dir, "config.toml")
			b, _ := os.ReadFile(p)
			stop := fmt.Sprintf("[hooks.state.%q]\n", filepath.Join(dir, "hooks.json")+":stop:0:0")
			os.WriteFile(p, []byte(strings.Replace(string(b), stop, stop+"enabled = false\n", 1)), 0o600)
		}, Warn, []string{"turned off: Stop", "hooks feature is off"}, []string{"enabled = false", "[features]"}},
	} {
		step.do()
		c := checkCodexHooks(e)
		if c.Level != step.level {
			t.Errorf("%s: level %s, want %s (%s)", step.name, c.Level, step.level, c.Detail)
		}
		for _, d := range step.detail {
			if !strings.Contains(c.Detail, d) {
				t.Errorf("%s: detail %q lacks %q", step.name, c.Detail, d)
			}
		}
		for _, f := range step.fix {
			if !strings.Contains(c.Fix, f) {
				t.Errorf("%s: fix %q lacks %q", step.name, c.Fix, f)
			}
		}
		if step.fix == nil && c.Fix != "" {
			t.Errorf("%s: fix %q, want none", step.name, c.Fix)
		}
	}
}

// startProc runs a process with the command line given (its argv[0] aside)
// until the test ends, and returns its pid.
func startProc(t *testing.T, args ...string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), envHelper+"=wait")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	return cmd.Process.Pid
}

// The codex server check finds the shared app-server by the pid file Codex
// keeps in its home, and believes it only of a live process whose command line
// is the server's.
func TestCheckCodexServer(t *testing.T) {
	dir := t.TempDir()
	e := Env{CodexHome: dir}
	pidFile := filepath.Join(dir, "app-server-daemon", "daemon.pid")
	if err := os.MkdirAll(filepath.Dir(pidFile), 0o700); err != nil {
		t.Fatal(err)
	}
	server := startProc(t, "app-server", "--listen", "unix://", "--managed-daemon")
	other := startProc(t, "mcp")
	ended := exec.Command(os.Args[0])
	ended.Env = append(os.Environ(), envHelper+"=exit")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		file   string // "" for none
		level  Level
		detail string
	}{
		{"no pid file", "", OK, "no shared Codex app-server runs for " + dir},
		{"the server", `{"pid":` + strconv.Itoa(server) + `,"processStartTime":"x"}`, Warn, "runs for " + dir + " (pid " + strconv.Itoa(server) + ")"},
		{"a reused pid", `{"pid":` + strconv.Itoa(other) + `}`, OK, "no shared Codex app-server"},
		{"an ended pid", `{"pid":` + strconv.Itoa(ended.Process.Pid) + `}`, OK, "no shared Codex app-server"},
		{"garbage", `not json`, Warn, "names no pid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(pidFile)
			if tc.file != "" {
				if err := os.WriteFile(pidFile, []byte(tc.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c := checkCodexServer(e)
			if c.Level != tc.level || !strings.Contains(c.Detail, tc.detail) {
				t.Errorf("%s %q, want %s with %q", c.Level, c.Detail, tc.level, tc.detail)
			}
			if tc.level == Warn && tc.name == "the server" && !strings.Contains(c.Fix, "codex app-server daemon stop") {
				t.Errorf("fix %q, want the way to stop it", c.Fix)
			}
		})
	}
}

// The codex rules check: nothing to judge before sotd's hooks are installed;
// an install's rules pass; rules taken out (--no-permissions) or a file of
// someone else's under sotd's name are each named with their fix.
func TestCheckCodexRules(t *testing.T) {
	dir := t.TempDir()
	e := Env{CodexHome: dir}
	rules := hooks.CodexRulesPath(filepath.Join(dir, "hooks.json"))
	for _, step := range []struct {
		name   string
		do     func()
		level  Level
		detail string
		fix    string
	}{
		{"none installed", func() {}, OK, "no sotd rules at " + rules, ""},
		{"installed", func() { codexInstall(t, dir, "sotd", false) }, OK, rules + " lets Codex run the mail verbs outside its sandbox", ""},
		{"taken out", func() { os.Remove(rules) }, Warn, "sotd's rules at " + rules + " are missing", "Run sotd hooks install --codex."},
		{"another's file", func() {
			os.WriteFile(rules, []byte("prefix_rule(pattern = [\"make\"], decision = \"allow\")\n"), 0o600)
		}, Warn, "is not sotd's rules file", "Move it aside"},
	} {
		step.do()
		c := checkCodexRules(e)
		if c.Level != step.level || !strings.Contains(c.Detail, step.detail) || !strings.Contains(c.Fix, step.fix) || (step.fix == "") != (c.Fix == "") {
			t.Errorf("%s: %s %q (fix %q), want %s with %q (fix %q)", step.name, c.Level, c.Detail, c.Fix, step.level, step.detail, step.fix)
		}
	}
}
