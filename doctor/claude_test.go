package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/hooks"
)

// The Claude Code lines where claude is not on PATH (the transcript
// doctor_claude.txtar has it on PATH): nothing installed is one ok line; an
// install is judged but its server's connection is not; a server registered
// as another program, and a skill of someone else's under sotd's name, are
// each named with their fix.
func TestCheckClaude(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	e := Env{Home: home.Home{Dir: filepath.Join(dir, "comm")}, ClaudeSettings: settings, Sotd: "sotd", LookPath: onlyTmux}
	byName := func() map[string]Check { return claudeLines(e) }
	cs := byName()
	if len(cs) != 2 || cs["claude hooks"].Level != OK || !strings.Contains(cs["claude hooks"].Detail, "sotd hooks install --claude adds them") ||
		cs["claude version"].Detail != "claude is not on PATH, so its version is not checked" {
		t.Errorf("nothing installed: %+v", cs)
	}

	var out strings.Builder
	in := hooks.Install{Agent: hooks.Claude, Settings: settings, Sotd: "sotd", Home: e.Home, Out: &out, Now: time.Now}
	if code := in.Run(); code != hooks.ExitOK {
		t.Fatalf("install: %d %s", code, out.String())
	}
	cs = byName()
	for _, name := range []string{"claude hooks", "claude skill", "claude mcp", "claude rules", "claude version"} {
		if c, ok := cs[name]; !ok || c.Level != OK || c.Fix != "" {
			t.Errorf("installed: %s: %+v, want ok", name, c)
		}
	}
	if d := cs["claude mcp"].Detail; !strings.Contains(d, "whether it connects is not checked: claude is not on PATH") {
		t.Errorf("claude mcp: %q", d)
	}

	json := filepath.Join(dir, ".claude.json")
	b, _ := os.ReadFile(json)
	os.WriteFile(json, []byte(strings.Replace(string(b), `"command": "sotd"`, `"command": "/opt/other/mail-server"`, 1)), 0o600)
	skill := filepath.Join(dir, "skills", "sot-comm", "SKILL.md")
	os.WriteFile(skill, []byte("---\nname: something-else\n---\nmine\n"), 0o600)
	cs = byName()
	if c := cs["claude mcp"]; c.Level != Warn || !strings.Contains(c.Detail, `runs "/opt/other/mail-server mcp", not this sotd's mcp`) || c.Fix != "Run sotd hooks install --claude." {
		t.Errorf("another program as sot-comm: %+v", c)
	}
	if c := cs["claude skill"]; c.Level != Warn || !strings.Contains(c.Detail, "is another skill than sotd's") || !strings.Contains(c.Fix, "Move that skill's folder aside") {
		t.Errorf("another skill as sot-comm: %+v", c)
	}
}

// A config that enables sotd's plugin is judged by the plugin's installed
// files, not settings.json's hooks: with the files this sotd renders every
// line is ok, the rules too (the plugin's guard allows the mail commands in
// their stead); an older plugin, a folder Claude Code lost, hooks also installed in
// settings.json, and a sotd on PATH that is not this one are each named with
// their fix.
func TestCheckClaudePlugin(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	plugin := filepath.Join(dir, "plugins", "cache", "sotd", "sot-comm", "unknown")
	files, err := hooks.PluginFiles()
	if err != nil {
		t.Fatal(err)
	}
	for p, b := range files {
		write(t, filepath.Join(plugin, filepath.FromSlash(p)), string(b))
	}
	listing := `{"version":2,"plugins":{"sot-comm@sotd":[{"scope":"user","installPath":"` + plugin + `","version":"unknown"}]}}`
	write(t, filepath.Join(dir, "plugins", "installed_plugins.json"), listing)
	enabled := `"enabledPlugins": {"sot-comm@sotd": true}`
	write(t, settings, "{"+enabled+"}")
	e := Env{Home: home.Home{Dir: filepath.Join(dir, "comm")}, ClaudeSettings: settings, Sotd: "sotd", LookPath: onlyTmux}
	lines := func() map[string]Check { return claudeLines(e) }

	cs := lines()
	for _, name := range []string{"claude hooks", "claude skill", "claude mcp", "claude rules"} {
		if c := cs[name]; c.Level != OK || !strings.Contains(c.Detail, "the sot-comm plugin (sot-comm@sotd)") {
			t.Errorf("plugin installed: %s: %+v, want ok and the plugin named", name, c)
		}
	}

	write(t, filepath.Join(plugin, "hooks", "hooks.json"), `{"hooks": {}}`)
	const update = "Run claude plugin marketplace update sotd, then claude plugin update sot-comm@sotd, and restart Claude Code."
	cs = lines()
	if c := cs["claude hooks"]; c.Level != Warn || !strings.Contains(c.Detail, "brings another sotd's hooks") || c.Fix != update {
		t.Errorf("an older plugin's hooks: %+v", c)
	}
	if c := cs["claude rules"]; c.Level != Warn || !strings.Contains(c.Detail, "whether they let the mail commands run without a dialog is unknown") || c.Fix != update {
		t.Errorf("an older plugin's rules: %+v", c)
	}
	write(t, filepath.Join(plugin, "hooks", "hooks.json"), string(files["hooks/hooks.json"]))

	e.Sotd = "/opt/other/sotd"
	if c := lines()["claude hooks"]; c.Level != Warn || !strings.Contains(c.Detail, "which is not this sotd (/opt/other/sotd)") {
		t.Errorf("another sotd on PATH: %+v", c)
	}
	e.Sotd = "sotd"

	var out strings.Builder
	if code := (hooks.Install{Agent: hooks.Claude, Settings: settings, Sotd: "sotd", Home: e.Home, Out: &out, Now: time.Now}).Run(); code != hooks.ExitOK {
		t.Fatalf("install: %d %s", code, out.String())
	}
	if c := lines()["claude hooks"]; c.Level != Warn || !strings.Contains(c.Detail, "each runs twice") || !strings.Contains(c.Fix, "sotd hooks uninstall --claude") {
		t.Errorf("hooks both installed and the plugin's: %+v", c)
	}

	write(t, filepath.Join(dir, "plugins", "installed_plugins.json"), `{"version":2,"plugins":{}}`)
	if cs := lines(); cs["claude hooks"].Level != Warn || cs["claude hooks"].Fix != "Run claude plugin install sot-comm@sotd." || len(cs) != 2 {
		t.Errorf("plugin enabled but not installed: %+v", cs)
	}
}

// claudeLines is checkClaude's lines by name.
func claudeLines(e Env) map[string]Check {
	m := map[string]Check{}
	for _, c := range checkClaude(e) {
		m[c.Name] = c
	}
	return m
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
