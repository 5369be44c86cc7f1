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
	byName := func() map[string]Check {
		m := map[string]Check{}
		for _, c := range checkClaude(e) {
			m[c.Name] = c
		}
		return m
	}
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
