package hooks

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
)

// commHome is the comm home the installs of a test put their shims in: a comm
// folder beside the settings, so a snapshot of the folder covers it.
func commHome(t *testing.T, settings string) home.Home {
	t.Helper()
	dir := filepath.Join(filepath.Dir(settings), "comm")
	if err := home.MkdirPrivate(dir); err != nil {
		t.Fatal(err)
	}
	return home.Home{Dir: dir}
}

func install(t *testing.T, c *testutil.Clock, agent Agent, settings, sotd string) string {
	t.Helper()
	return installAs(t, c, Install{Agent: agent, Settings: settings, Sotd: sotd})
}

// installAs runs in with the test's comm home, output and clock.
func installAs(t *testing.T, c *testutil.Clock, in Install) string {
	t.Helper()
	var out bytes.Buffer
	in.Home, in.Out, in.Now = commHome(t, in.Settings), &out, c.Now
	if code := in.Run(); code != ExitOK {
		t.Fatalf("install: exit %d: %s", code, out.String())
	}
	return out.String()
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range es {
		n = append(n, e.Name())
	}
	sort.Strings(n)
	return n
}

// The first change keeps the old bytes, with the file's mode, beside it; a run
// that changes nothing writes nothing, backup included; a second change within
// the same second keeps its own backup.
func TestInstallBackupAndIdempotence(t *testing.T) {
	c := newClock()
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	orig := []byte("{\"model\": \"opus\", \"model\": \"sonnet\",\n \"env\": {\"A\": \"1\"}}\n")
	if err := os.WriteFile(p, orig, 0o644); err != nil {
		t.Fatal(err)
	}

	install(t, c, Claude, p, "sotd")
	bak := p + ".bak.20260615T193213Z"
	if b, err := os.ReadFile(bak); err != nil || !bytes.Equal(b, orig) {
		t.Fatalf("backup %s holds %q, %v; want the file as it was", bak, b, err)
	}
	for _, f := range []string{p, bak} {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, %v; want the file's own 0644", f, fi.Mode().Perm(), err)
		}
	}
	after, _ := os.ReadFile(p)
	if !bytes.HasPrefix(after, []byte("{\n  \"model\": \"opus\",\n  \"model\": \"sonnet\",\n  \"env\": {\n    \"A\": \"1\"\n  },\n  \"hooks\": {")) {
		t.Errorf("the other keys did not stay as and where they were:\n%s", after)
	}

	out := install(t, c, Claude, p, "sotd")
	if !strings.Contains(out, "nothing changed: every sotd hook, the instructions and the shims are already installed\n") {
		t.Errorf("a second run said:\n%s", out)
	}
	if again, _ := os.ReadFile(p); !bytes.Equal(again, after) {
		t.Error("a second run changed the file")
	}
	if got := names(t, dir); len(got) != 5 {
		t.Errorf("the folder holds %q; a run that changes nothing keeps no backup", got)
	}

	install(t, c, Claude, p, "/opt/sotd/bin/sotd")
	if got := names(t, dir); len(got) != 7 || got[5] != "settings.json.bak.20260615T193213Z-2" {
		t.Errorf("the folder holds %q; a change in the same second keeps a backup of its own", got)
	}
	if b, _ := os.ReadFile(p + ".bak.20260615T193213Z-2"); !bytes.Equal(b, after) {
		t.Error("the second backup is not the file as the second change found it")
	}
}

// A settings file that is a symlink (a dotfiles checkout) stays one: the file it
// points at is edited, and its backup kept beside it.
func TestInstallEditsThroughASymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need a privilege on Windows")
	}
	c := newClock()
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "claude.json")
	os.MkdirAll(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte(`{"theme":"dark"}`), 0o600)
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	install(t, c, Claude, link, "sotd")
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s is no longer a symlink (%v)", link, err)
	}
	b, _ := os.ReadFile(target)
	if !strings.Contains(string(b), `"theme": "dark"`) || !strings.Contains(string(b), `"command": "sotd hook stop"`) {
		t.Errorf("the target holds:\n%s", b)
	}
	if _, err := os.Stat(target + ".bak.20260615T193213Z"); err != nil {
		t.Errorf("no backup beside the target: %v", err)
	}
}

// A sotd on a path with a space is quoted for the shell and still known as sotd's
// own hook on the next run.
func TestInstallQuotedSotd(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX quoting")
	}
	c := newClock()
	p := filepath.Join(t.TempDir(), "hooks.json")
	sotd := shellQuote("/opt/my tools/sotd")
	if sotd != "'/opt/my tools/sotd'" {
		t.Fatalf("quoted %q", sotd)
	}
	first := install(t, c, Codex, p, sotd)
	if !strings.Contains(first, "added      Stop: '/opt/my tools/sotd' hook stop") {
		t.Errorf("first run:\n%s", first)
	}
	if second := install(t, c, Codex, p, sotd); !strings.Contains(second, "nothing changed") {
		t.Errorf("second run:\n%s", second)
	}
}

func TestShellQuote(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX quoting")
	}
	tests := map[string]string{
		"/usr/local/bin/sotd": "/usr/local/bin/sotd",
		"/opt/my tools/sotd":  "'/opt/my tools/sotd'",
		"/it's/sotd":          `'/it'\''s/sotd'`,
		"/a$b/sotd":           "'/a$b/sotd'",
	}
	for in, want := range tests {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
		if words, ok := simpleCommand(shellQuote(in) + " hook stop"); !ok || words[0] != in {
			t.Errorf("%q does not read back as %q: %q", shellQuote(in), in, words)
		}
	}
}

func TestRunsSotdHook(t *testing.T) {
	tests := []struct {
		command, args string
		want          bool
	}{
		{"sotd hook stop", "stop", true},
		{"/usr/local/bin/sotd hook stop", "stop", true},
		{"'/opt/my tools/sotd' hook stop", "stop", true},
		{"sotd hook posttool --codex", "posttool --codex", true},
		{"sotd hook posttool", "posttool --codex", false},
		{"sotd hook stop && notify", "stop", false},
		{"notify-send done", "stop", false},
		{"mysotd hook stop", "stop", false},
	}
	for _, tt := range tests {
		if got := runsSotdHook(tt.command, tt.args); got != tt.want {
			t.Errorf("runsSotdHook(%q, %q) = %v, want %v", tt.command, tt.args, got, tt.want)
		}
	}
}

func FuzzParseObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"a":2}`, `{"hooks":{"Stop":[]}}`, `[]`, `{"a":`, `{} {}`, `{"a":"\u00e9"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := parseObject(b)
		if err != nil {
			return
		}
		again, err := o.MarshalJSON()
		if err != nil {
			t.Fatalf("parsed %q but cannot write it back: %v", b, err)
		}
		o2, err := parseObject(again)
		if err != nil || len(o2) != len(o) {
			t.Fatalf("%q wrote %q, which reads back as %d members (%v), not %d", b, again, len(o2), err, len(o))
		}
	})
}

func uninstall(t *testing.T, c *testutil.Clock, agent Agent, settings string) string {
	t.Helper()
	var out bytes.Buffer
	if code := (Uninstall{Agent: agent, Settings: settings, Home: commHome(t, settings), Out: &out, Now: c.Now}).Run(); code != ExitOK {
		t.Fatalf("uninstall: exit %d: %s", code, out.String())
	}
	return out.String()
}

// snapshot is every file and folder under dir with its bytes, backups left out:
// what an agent reads.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir || strings.Contains(d.Name(), ".bak.") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			files[rel] = "(folder)"
			return nil
		}
		b, err := os.ReadFile(p)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sameFiles(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s holds\n%s\nwant\n%s", what, k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s is left over", what, k)
		}
	}
}

// A config folder as a person keeps it: settings with their own hooks in their
// own formatting, and, for Codex, an AGENTS.md of their own.
var personal = map[Agent]map[string]string{
	Claude: {
		"settings.json":          "{\n    \"theme\": \"dark\",\n    \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}]}\n}\n",
		"skills":                 "(folder)",
		"skills/review":          "(folder)",
		"skills/review/SKILL.md": "---\nname: review\ndescription: review code\n---\nBe kind.\n",
		".claude.json":           "{\n  \"numStartups\": 3,\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"x\"\n    }\n  }\n}",
		"comm/bin":               "(folder)",
		"comm/bin/comm-probe.sh": "#!/usr/bin/env bash\necho a reference client's script\n",
	},
	Codex: {
		"hooks.json": "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":\"lint-guard\"}]}]}}",
		"AGENTS.md":  "# My rules\n\nAlways run the tests.\n",
	},
}

func settingsName(a Agent) string {
	if a == Codex {
		return "hooks.json"
	}
	return "settings.json"
}

func lay(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if body == "(folder)" {
			os.MkdirAll(p, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Install twice: the second run changes no byte, in a bare folder and in a
// person's; uninstall then leaves every file as it was before the install, byte
// for byte, the person's own hooks, skill and AGENTS.md text included.
func TestInstallUninstallRoundTrip(t *testing.T) {
	for _, agent := range []Agent{Claude, Codex} {
		for _, start := range []string{"bare", "personal"} {
			t.Run(string(agent)+"/"+start, func(t *testing.T) {
				c := newClock()
				dir := t.TempDir()
				if start == "personal" {
					lay(t, dir, personal[agent])
				}
				settings := filepath.Join(dir, settingsName(agent))
				commHome(t, settings)
				before := snapshot(t, dir)

				install(t, c, agent, settings, "sotd")
				first := snapshot(t, dir)
				ins := InstructionsPath(agent, settings)
				b, err := os.ReadFile(ins)
				if err != nil || !strings.Contains(string(b), "sotd send @handle 'text'") {
					t.Fatalf("%s holds %q (%v); want the instructions", ins, b, err)
				}
				for k, v := range before {
					if k != settingsName(agent) && k != ".claude.json" && first[k] != v && !(agent == Codex && k == "AGENTS.md") {
						t.Errorf("install changed %s", k)
					}
				}
				if agent == Claude {
					b, _ := os.ReadFile(filepath.Join(dir, ".claude.json"))
					if !strings.Contains(string(b), `"sot-comm": {`) || strings.HasSuffix(string(b), "\n") != (start == "bare") {
						t.Errorf(".claude.json does not register sotd mcp as Claude Code writes it:\n%s", b)
					}
				}
				c.Add(time.Second)
				out := install(t, c, agent, settings, "sotd")
				if !strings.Contains(out, "nothing changed") {
					t.Errorf("a second install said:\n%s", out)
				}
				sameFiles(t, "after a second install", snapshot(t, dir), first)

				c.Add(time.Second)
				out = uninstall(t, c, agent, settings)
				if !strings.Contains(out, "removed    Stop: sotd hook stop") {
					t.Errorf("uninstall said:\n%s", out)
				}
				sameFiles(t, "after uninstall", snapshot(t, dir), before)
				if out := uninstall(t, c, agent, settings); !strings.Contains(out, "nothing changed") {
					t.Errorf("a second uninstall said:\n%s", out)
				}
			})
		}
	}
}

// An AGENTS.md with the person's text around an older sot-comm section: install
// replaces only the section, uninstall removes only it.
func TestAgentsSectionIsMergeOnly(t *testing.T) {
	c := newClock()
	dir := t.TempDir()
	p := filepath.Join(dir, "AGENTS.md")
	head, tail := "# Team rules\n\nUse tabs.\n", "\n## Later rules\n\nNo force pushes.\n"
	os.WriteFile(p, []byte(head+beginMark+"an older guide\n"+endMark+tail), 0o644)

	out := install(t, c, Codex, filepath.Join(dir, "hooks.json"), "sotd")
	if !strings.Contains(out, "updated    the sot-comm section") {
		t.Errorf("install said:\n%s", out)
	}
	b, _ := os.ReadFile(p)
	if want := head + beginMark + guide + endMark + tail; string(b) != want {
		t.Errorf("AGENTS.md holds\n%s\nwant\n%s", b, want)
	}
	uninstall(t, c, Codex, filepath.Join(dir, "hooks.json"))
	if b, _ := os.ReadFile(p); string(b) != head+tail {
		t.Errorf("after uninstall AGENTS.md holds\n%s\nwant the person's text alone", b)
	}

	os.WriteFile(p, []byte(head+beginMark+"no end line\n"), 0o644)
	var o bytes.Buffer
	if code := (Install{Agent: Codex, Settings: filepath.Join(dir, "hooks.json"), Sotd: "sotd", Home: commHome(t, p), Out: &o, Now: c.Now}).Run(); code != ExitFailed || !strings.Contains(o.String(), "broken sot-comm section") {
		t.Errorf("a broken section: exit %d, %s", code, o.String())
	}
}

// A settings file the person changed after the install loses only sotd's hooks
// at uninstall; their change stays.
func TestUninstallKeepsLaterEdits(t *testing.T) {
	c := newClock()
	dir := t.TempDir()
	lay(t, dir, personal[Claude])
	p := filepath.Join(dir, "settings.json")
	install(t, c, Claude, p, "sotd")
	b, _ := os.ReadFile(p)
	edited := strings.Replace(string(b), `"theme": "dark"`, `"theme": "light"`, 1)
	os.WriteFile(p, []byte(edited), 0o644)

	c.Add(time.Second)
	uninstall(t, c, Claude, p)
	got, _ := os.ReadFile(p)
	want := "{\n  \"theme\": \"light\",\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"notify-send done\"\n          }\n        ]\n      }\n    ]\n  }\n}\n"
	if string(got) != want {
		t.Errorf("after uninstall:\n%s\nwant\n%s", got, want)
	}
}

// scripts/ in the source tree holds exactly the shims Install writes for a sotd
// on PATH: one list, no twin to drift.
func TestShimsAreTheScripts(t *testing.T) {
	files, err := filepath.Glob("../scripts/comm-*.sh")
	if err != nil || len(files) != len(shimVerbs) {
		t.Fatalf("scripts/ holds %q (%v); Install writes %d shims", files, err, len(shimVerbs))
	}
	for _, s := range shimVerbs {
		b, err := os.ReadFile(filepath.Join("..", "scripts", s.name))
		if err != nil || !bytes.Equal(b, shim("sotd", s.verb)) {
			t.Errorf("scripts/%s holds %q (%v); Install writes %q", s.name, b, err, shim("sotd", s.verb))
		}
		if !isShim(b, s.verb) || isShim(b, "other") {
			t.Errorf("isShim does not know scripts/%s for what it is", s.name)
		}
	}
}

// A process with the PATH a row gets finds comm-poll.sh in the home's bin/, and
// the shim execs sotd's poll with the arguments it was given.
func TestRowPathFindsTheShims(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the shims are bash scripts")
	}
	c := newClock()
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake sotd")
	os.WriteFile(fake, []byte("#!/bin/sh\necho \"sotd $*\"\n"), 0o755)
	settings := filepath.Join(dir, "settings.json")
	out := install(t, c, Claude, settings, shellQuote(fake))
	h := commHome(t, settings)
	if !strings.Contains(out, "export PATH=\""+h.BinDir()+":$PATH\"") {
		t.Errorf("install did not print the line to add:\n%s", out)
	}

	row := h.RowPath([]string{"PATH=/usr/bin:/bin"})
	if row != "PATH="+h.BinDir()+":/usr/bin:/bin" {
		t.Fatalf("RowPath = %q", row)
	}
	t.Setenv("PATH", strings.TrimPrefix(row, "PATH="))
	p, err := exec.LookPath("comm-poll.sh")
	if err != nil || p != filepath.Join(h.BinDir(), "comm-poll.sh") {
		t.Fatalf("comm-poll.sh resolves to %q (%v)", p, err)
	}
	got, err := exec.Command(p, "--json").CombinedOutput()
	if err != nil || string(got) != "sotd poll --json\n" {
		t.Errorf("comm-poll.sh --json ran %q (%v)", got, err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != binMode {
		t.Errorf("the shim's mode: %v %v", fi.Mode(), err)
	}
}

// The shims are shared: uninstalling one agent keeps them while the other's
// install uses them. A script in bin/ that is not sotd's shim is never touched.
func TestShimsOutliveOneAgent(t *testing.T) {
	c := newClock()
	dir := t.TempDir()
	claude, codex := filepath.Join(dir, "claude", "settings.json"), filepath.Join(dir, "codex", "hooks.json")
	h := home.Home{Dir: filepath.Join(dir, "comm")}
	os.MkdirAll(h.BinDir(), 0o755)
	theirs := []byte("#!/usr/bin/env bash\n# the reference client\nexec jq .\n")
	os.WriteFile(filepath.Join(h.BinDir(), "comm-list.sh"), theirs, 0o755)
	run := func(what any) string {
		var out bytes.Buffer
		var code int
		switch w := what.(type) {
		case Install:
			w.Home, w.Out, w.Now, w.Sotd = h, &out, c.Now, "sotd"
			code = w.Run()
		case Uninstall:
			w.Home, w.Out, w.Now = h, &out, c.Now
			code = w.Run()
		}
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, out.String())
		}
		return out.String()
	}
	if out := run(Install{Agent: Claude, Settings: claude}); !strings.Contains(out, "kept       comm-list.sh: it is not sotd's shim") {
		t.Errorf("install said:\n%s", out)
	}
	run(Install{Agent: Codex, Settings: codex})
	if out := run(Uninstall{Agent: Claude, Settings: claude}); !strings.Contains(out, "kept       the shims: codex still uses them") {
		t.Errorf("uninstall said:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(h.BinDir(), "comm-poll.sh")); err != nil {
		t.Fatalf("the shims went with Claude's uninstall: %v", err)
	}
	run(Uninstall{Agent: Codex, Settings: codex})
	if got := names(t, h.BinDir()); len(got) != 1 || got[0] != "comm-list.sh" {
		t.Errorf("bin/ holds %q; want only the reference client's script", got)
	}
	if b, _ := os.ReadFile(filepath.Join(h.BinDir(), "comm-list.sh")); !bytes.Equal(b, theirs) {
		t.Error("the reference client's script was changed")
	}
}

// The waiter's hooks are asyncRewake hooks with a timeout above its life, and
// one written without those keys (an older install's, or a hand edit's) is
// brought up to date: a plain hook would hold the session at every turn end.
func TestInstallRewakeHooks(t *testing.T) {
	c := newClock()
	p := filepath.Join(t.TempDir(), "settings.json")
	old := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"sotd hook wait"}]}]}}`
	if err := os.WriteFile(p, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	out := install(t, c, Claude, p, "sotd")
	for _, want := range []string{
		"  updated    SessionStart: sotd hook wait (was: sotd hook wait)\n",
		"  added      Stop: sotd hook wait\n",
		"  added      FileChanged (" + armMatcher(commHome(t, p)) + "): sotd hook wait\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the install said:\n%s\nwant the line %q", out, want)
		}
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	root, err := parseObject(b)
	if err != nil {
		t.Fatal(err)
	}
	hooks, _ := root.get("hooks")
	events, _ := parseObject(hooks)
	for _, event := range []string{"SessionStart", "Stop", "FileChanged"} {
		raw, _ := events.get(event)
		groups, _ := list(raw, event)
		found := 0
		for h := range sotdHandlers(groups, "wait") {
			found++
			if !holds(h.handler, (hookSpec{rewake: true}).handler("sotd hook wait")) {
				t.Errorf("%s: the waiter's hook is %s, want asyncRewake and timeout %d", event, h.group, waitTimeout)
			}
		}
		if found != 1 {
			t.Errorf("%s holds %d waiter hooks, want 1", event, found)
		}
	}
	if time.Duration(waitTimeout)*time.Second <= WaitFor {
		t.Errorf("the hook's timeout, %ds, is not above the waiter's life, %v", waitTimeout, WaitFor)
	}
	if out := install(t, c, Claude, p, "sotd"); !strings.Contains(out, "nothing changed") {
		t.Errorf("a second install said:\n%s\nwant nothing changed", out)
	}
}
