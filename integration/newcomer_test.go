//go:build soak && !windows

package integration

import (
	"crypto/sha256"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/hooks"
	"github.com/sotcomm/sotd/internal/fakeclaude"
	"github.com/sotcomm/sotd/internal/fakeopenai"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
)

// approvalPrompts are what Claude Code and Codex show when they stop for a
// person: a command's approval (Claude Code 2.1.197, 2.1.332's auto mode;
// Codex's "Would you like to run"), hooks awaiting trust, a folder's trust.
var approvalPrompts = append([]string{"Hooks need review", "Would you like to run", "Do you trust"}, dialogs...)

// TestNewcomer (a soak: two real agents, twice) is a newcomer's first ten
// minutes as README tells them, from a fresh HOME in which Claude Code and
// Codex have been used (onboarded, the project folders trusted, pointed at the
// fake model APIs) but sotd never has: `sotd serve` on its defaults (a
// standalone hub on ~/.sot-comm, no SOT_ variable), `sotd hooks install` with
// no flag (it finds claude and codex on PATH), `sotd doctor`, then `sotd run
// -- claude` in one project and `sotd run -- codex` in another, each on a
// terminal of its own. The person asks Claude Code to ask the Codex session
// whether it is there; the fake APIs script the models' turns: Claude Code runs
// sotd send, the wake types its notice into the idle Codex, which runs sotd
// poll and sotd send back, and the wake's notice in the idle Claude Code has
// it run comm-poll.sh, which shows the answer. No approval, trust or review
// prompt appears on either screen at any point; nothing in HOME is written by
// the test after the install, and the files the install wrote are as it left
// them. It runs with the pinned Claude Code and the newest
// (SOTD_CLAUDE_NEWEST), and logs the transcript: each command and what it
// printed.
func TestNewcomer(t *testing.T) {
	claude := realClaude(t)
	codex := realCodex(t, "a newcomer's first day")
	for _, a := range []struct{ name, bin string }{{"pinned", claude}, {"newest", os.Getenv(newestClaudeEnv)}} {
		t.Run(a.name, func(t *testing.T) {
			if a.bin == "" {
				t.Skipf("%s is not set: it names the newest Claude Code's binary", newestClaudeEnv)
			}
			newcomer(t, a.bin, codex)
		})
	}
}

func newcomer(t *testing.T, claude, codex string) {
	started := time.Now()
	capi, err := fakeclaude.Start(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { capi.Close() })
	oapi, err := fakeopenai.Start(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { oapi.Close() })

	t.Setenv(home.EnvSelfHost, "") // the box's name as sotd finds it with none given
	b := newBox(t, home.SelfHost())
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b.defaults, b.home = true, filepath.Join(dir, ".sot-comm")
	alpha, beta := filepath.Join(dir, "src", "alpha"), filepath.Join(dir, "src", "beta")
	codexHome := filepath.Join(dir, ".codex")
	t.Cleanup(func() {
		if err := fakeopenai.StopCodexDaemons(codexHome); err != nil {
			t.Error(err)
		}
	})
	usedAgents(t, dir, capi, oapi, alpha, beta)
	bins := t.TempDir() // the agents a person has on PATH
	for name, bin := range map[string]string{"claude": claude, "codex": codex} {
		if err := os.Symlink(bin, filepath.Join(bins, name)); err != nil {
			t.Fatal(err)
		}
	}
	b.extra = []string{
		"HOME=" + dir,
		"PATH=" + filepath.Dir(sotdBin) + string(os.PathListSeparator) + bins + string(os.PathListSeparator) + os.Getenv("PATH"),
		"ANTHROPIC_API_KEY=" + claudeKey, "ANTHROPIC_BASE_URL=" + capi.URL,
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"OPENAI_API_KEY=" + codexKey,
	}
	tr := &transcript{home: dir}
	t.Cleanup(func() { t.Logf("a newcomer's first ten minutes (%s):\n%s", claude, tr) })

	d := b.serve()
	tr.add("", "sotd serve &", firstLines(d.logs.String(), 2))
	out := tr.must(b, "hooks", "install")
	for _, want := range []string{"found claude on PATH", "found codex on PATH", dir + "/.codex/config.toml:\n  added      Codex's trust in the 7 sotd hooks above"} {
		if !strings.Contains(out, want) {
			t.Errorf("sotd hooks install does not say %q", want)
		}
	}
	installed := snapshot(t, dir)
	doctor := tr.must(b, "doctor")
	if !strings.Contains(doctor, "OK    codex hooks    7 sotd hooks in") || !regexp.MustCompile(`(?m)^healthy(, \d+ warnings? \(see WARN above\))?$`).MatchString(doctor) {
		t.Errorf("doctor after the install:\n%s", doctor)
	}

	claudeTerm, _ := onTerminal(t, b, alpha, nil, "run", "--", "claude")
	tr.add(alpha, "sotd run -- claude", "")
	codexTerm, _ := onTerminal(t, b, beta, nil, "run", "--", "codex")
	tr.add(beta, "sotd run -- codex", "")
	rowOf := map[string]string{} // handle: row
	var rowsOut string
	t.Cleanup(func() {
		if len(rowOf) < 2 {
			tail := func(s string) string { return s[max(0, len(s)-4000):] }
			t.Logf("sotd rows:\n%s\nsotd run -- claude's terminal, its end: %q\nsotd run -- codex's terminal, its end: %q\nsotd serve's log:\n%s",
				rowsOut, tail(claudeTerm.String()), tail(codexTerm.String()), tail(d.logs.String()))
		}
	})
	testutil.Eventually(t, agentStep, "both rows", func() bool {
		rowsOut = b.must("", "rows")
		for _, m := range regexp.MustCompile(`(?m)^(ws-[a-z2-7]{10}) +\S+ +\S+ +@(\S+)`).FindAllStringSubmatch(rowsOut, -1) {
			rowOf[m[2]] = m[1]
		}
		return len(rowOf) == 2
	})
	alphaH, betaH := registry.Tiers(alpha, b.host)[0], registry.Tiers(beta, b.host)[0]
	claudeRow, codexRow := rowOf[alphaH], rowOf[betaH]
	if claudeRow == "" || codexRow == "" {
		t.Fatalf("the rows %v are not @%s and @%s", rowOf, alphaH, betaH)
	}
	screen := func(id string) string { return b.run("", "", "rows", "screen", id).stdout }
	// look reads both screens and fails the test at the first prompt that
	// waits for a person; every wait below looks.
	look := func() (claudeScreen, codexScreen string) {
		claudeScreen, codexScreen = screen(claudeRow), screen(codexRow)
		for _, s := range []string{claudeScreen, codexScreen} {
			for _, p := range approvalPrompts {
				if strings.Contains(s, p) {
					t.Fatalf("a screen asks a person (%q):\n%s", p, s)
				}
			}
		}
		return
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("Claude Code's row:\n%s\nCodex's row:\n%s\nClaude's tool results: %q\nCodex's call outputs: %q",
				screen(claudeRow), screen(codexRow), capi.ToolResults(), oapi.Outputs())
		}
		b.run("", "", "despawn", claudeRow)
		b.run("", "", "despawn", codexRow)
	})
	testutil.Eventually(t, agentStep, "Claude Code's prompt and Codex's composer", func() bool {
		c, x := look()
		return strings.Contains(c, "❯") && strings.Contains(x, "› ") && !strings.Contains(x, "loading")
	})
	list := tr.must(b, "list")
	for _, h := range []string{alphaH, betaH} {
		if !strings.Contains(list, "@"+h) {
			t.Errorf("sotd list lacks @%s:\n%s", h, list)
		}
	}

	// The models' turns: Claude Code asks @beta, Codex answers when woken, and
	// Claude Code reads the answer when woken.
	ask := "Ask the Codex session @" + betaH + " over sot-comm whether it is there."
	const ping, pong = "ping from Claude Code: are you there?", "pong from Codex: here"
	capi.Plan(ask, "sotd send @"+betaH+" '"+ping+"'")
	capi.AlsoPlan(registry.WakeNotice, "comm-poll.sh")
	oapi.Plan(registry.WakeNotice, "sotd poll", "sotd send @"+alphaH+" '"+pong+"'")
	if _, err := claudeTerm.tty.Write([]byte(ask)); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, agentStep, "the request typed into Claude Code", func() bool {
		c, _ := look()
		return strings.Contains(strings.Join(strings.Fields(c), " "), ask)
	})
	if _, err := claudeTerm.tty.Write([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	results := func() string { return strings.Join(capi.ToolResults(), "\n") }
	testutil.Eventually(t, agentStep, "Claude Code's sotd send, filed to @"+betaH, func() bool {
		look()
		return strings.Contains(results(), "filed -> @"+betaH)
	})
	testutil.Eventually(t, agentStep, "Codex woken: its sotd poll shows the ping, its sotd send files the pong", func() bool {
		look()
		outs := strings.Join(oapi.Outputs(), "\n")
		return strings.Contains(outs, ping) && strings.Contains(outs, "filed -> @"+alphaH)
	})
	testutil.Eventually(t, agentStep, "Claude Code woken: its comm-poll.sh shows the pong", func() bool {
		look()
		return strings.Contains(results(), pong)
	})
	claudeScreen, codexScreen := look()
	tr.add(alpha, "(Claude Code's row, as sotd rows screen "+claudeRow+" shows it)", lastLines(claudeScreen, 20))
	tr.add(beta, "(Codex's row, as sotd rows screen "+codexRow+" shows it)", lastLines(codexScreen, 20))

	// What the install wrote is as it left it; the agents' own state files
	// changed as they run, and are named.
	after := snapshot(t, dir)
	var changed []string
	for path, sum := range installed {
		switch {
		case after[path] == sum:
		case sotdWrote(path):
			t.Errorf("%s, written by the install, changed during the run", path)
		default:
			changed = append(changed, path)
		}
	}
	ct, err := hooks.ReadCodexTrust(filepath.Join(codexHome, "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range ct.Hooks {
		if h.Trust != hooks.Trusted {
			t.Errorf("after the run Codex's %s hook is %s", h.Event, h.Trust)
		}
	}
	t.Logf("changed by the agents themselves during the run: %q", changed)
	if b, err := os.ReadFile(filepath.Join(codexHome, "config.toml")); err == nil {
		t.Logf("Codex's config.toml after the run:\n%s", b)
	}
	t.Logf("%s: install to a mailed answer with no prompt for a person: %v", claude, time.Since(started).Round(10*time.Millisecond))
}

const (
	claudeKey = "sk-ant-api03-sotd-newcomer-test-000000000000000000000000000000000000"
	codexKey  = "sk-sotd-codex-test-0000000000000000"
)

// usedAgents is what a person who has used Claude Code and Codex already has in
// HOME (dir): each onboarded, pointed at its fake API, and trusting its
// project folder (made here). sotd has never run.
func usedAgents(t *testing.T, dir string, capi *fakeclaude.Server, oapi *fakeopenai.Server, alpha, beta string) {
	t.Helper()
	for _, d := range []string{alpha, beta, filepath.Join(dir, ".codex")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		".claude.json": `{"hasCompletedOnboarding": true, "projects": {"` + alpha + `": {"hasTrustDialogAccepted": true}},` +
			` "customApiKeyResponses": {"approved": ["` + claudeKey[len(claudeKey)-20:] + `"], "rejected": []}}`,
		".codex/config.toml": oapi.CodexConfig() + "\n[projects.\"" + beta + "\"]\ntrust_level = \"trusted\"\n",
		".codex/auth.json":   `{"auth_mode":"apikey","OPENAI_API_KEY":"` + codexKey + `"}`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot is every file in HOME outside the comm home, by its path, with its
// content's hash.
func snapshot(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	sums := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // an agent's file that came and went
		case e.IsDir() && e.Name() == ".sot-comm":
			return filepath.SkipDir
		case !e.Type().IsRegular():
			return nil
		}
		if b, err := os.ReadFile(path); err == nil {
			sums[path] = sha256.Sum256(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

// sotdWrote reports whether the install wrote the file whole, so no agent has
// cause to change it: Claude Code's settings and skill, Codex's hooks, rules
// and AGENTS.md. (~/.claude.json and Codex's config.toml are the agents' own
// too: the run checks the parts sotd wrote there by what they mean.)
func sotdWrote(path string) bool {
	for _, suffix := range []string{"/.claude/settings.json", "/skills/sot-comm/SKILL.md", "/.codex/hooks.json", "/.codex/rules/sot-comm.rules", "/.codex/AGENTS.md"} {
		if strings.HasSuffix(path, suffix) {
			return true
		}
	}
	return false
}

// transcript is the commands a newcomer runs and what each printed, with
// HOME shown as ~.
type transcript struct {
	home string
	b    strings.Builder
}

func (tr *transcript) add(dir, command, out string) {
	prompt := "$ "
	if dir != "" {
		prompt = strings.Replace(dir, tr.home, "~", 1) + " $ "
	}
	tr.b.WriteString(prompt + command + "\n" + strings.ReplaceAll(out, tr.home, "~"))
	if out != "" && !strings.HasSuffix(out, "\n") {
		tr.b.WriteString("\n")
	}
}

// must runs sotd args on b as the person would in HOME, and adds it.
func (tr *transcript) must(b *box, args ...string) string {
	out := b.must("", args...)
	tr.add("", "sotd "+strings.Join(args, " "), out)
	return out
}

func (tr *transcript) String() string { return tr.b.String() }

func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.Join(lines[:min(n, len(lines))], "")
}

// lastLines is a screen's last n lines that hold anything, without the
// trailer sotd rows screen adds (cols=…, dim=…).
func lastLines(s string, n int) string {
	var kept []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "cols=") && !strings.HasPrefix(l, "dim=") {
			kept = append(kept, strings.TrimRight(l, " "))
		}
	}
	return strings.Join(kept[max(0, len(kept)-n):], "\n") + "\n"
}
