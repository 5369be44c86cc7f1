package hooks

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the Claude Code plugin's checked-in files from what this sotd renders")

// repoRoot is the repository's root, from this package's folder.
const repoRoot = ".."

// TestPlugin holds the checked-in Claude Code plugin and marketplace to what
// PluginFiles and MarketplaceJSON render, so they cannot drift from what
// Install writes: a change to the hooks, the skill or the MCP entry fails here
// until the files are refreshed with the command it names.
func TestPlugin(t *testing.T) {
	files, err := PluginFiles()
	if err != nil {
		t.Fatal(err)
	}
	want, mode := map[string][]byte{}, map[string]os.FileMode{}
	for p, b := range files {
		path := filepath.Join(repoRoot, PluginDir, filepath.FromSlash(p))
		want[path], mode[path] = b, PluginFileMode(p)
	}
	market := filepath.Join(repoRoot, filepath.FromSlash(MarketplacePath))
	if want[market], err = MarketplaceJSON(); err != nil {
		t.Fatal(err)
	}
	mode[market] = 0o644
	for path, b := range want {
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, mode[path]); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, mode[path]); err != nil {
				t.Fatal(err)
			}
			continue
		}
		have, err := os.ReadFile(path)
		fi, _ := os.Stat(path)
		if err != nil || !bytes.Equal(have, b) || fi.Mode().Perm()&0o111 != mode[path]&0o111 {
			t.Errorf("%s is not what this sotd renders (%v): refresh the plugin with\n\tgo test ./hooks -run TestPlugin -update", path, err)
		}
	}
	// A file in the plugin's folder that PluginFiles does not render would be
	// installed by Claude Code all the same.
	filepath.WalkDir(filepath.Join(repoRoot, PluginDir), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && want[path] == nil {
			t.Errorf("%s is in the plugin but not rendered by PluginFiles: remove it", path)
		}
		return err
	})
}

// The plugin's hooks are Install's, each run as "sotd" from PATH, but for the
// guard (its matcher names the plugin's tools, and it allows the mail
// commands, as Install's rules would) and the re-arm (a bare-name matcher,
// and Watch to name the path); its MCP server, skill and shims are
// Install's.
func TestPluginIsInstall(t *testing.T) {
	files, err := PluginFiles()
	if err != nil {
		t.Fatal(err)
	}
	var hj struct {
		Hooks map[string][]struct {
			Matcher string            `json:"matcher"`
			Hooks   []json.RawMessage `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(files["hooks/hooks.json"], &hj); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for event, groups := range hj.Hooks {
		for _, g := range groups {
			for _, raw := range g.Hooks {
				var h struct {
					Command     string `json:"command"`
					AsyncRewake bool   `json:"asyncRewake"`
				}
				json.Unmarshal(raw, &h)
				got[event+" "+g.Matcher+" "+h.Command+" "+map[bool]string{true: "rewake", false: ""}[h.AsyncRewake]] = true
			}
		}
	}
	want := map[string]bool{"SessionStart  sotd hook watch ": true}
	for _, sp := range specs[Claude] {
		m, args := sp.matcher, sp.args
		switch {
		case sp.event == "PreToolUse":
			m, args = "Bash|AskUserQuestion|mcp__plugin_sot-comm_sot-comm__.*", args+" --allow-mail"
		case sp.arm:
			m = ArmName
		}
		want[sp.event+" "+m+" sotd hook "+args+" "+map[bool]string{true: "rewake", false: ""}[sp.rewake]] = true
	}
	for k := range want {
		if !got[k] {
			t.Errorf("the plugin lacks the hook %q", k)
		}
	}
	for k := range got {
		if !want[k] {
			t.Errorf("the plugin has a hook an install has not: %q", k)
		}
	}
	if !strings.Contains(string(files[".mcp.json"]), `"sot-comm": {`) || !strings.Contains(string(files[".mcp.json"]), `"command": "sotd"`) {
		t.Errorf(".mcp.json: %s", files[".mcp.json"])
	}
	if !bytes.Equal(files["skills/sot-comm/SKILL.md"], skill()) {
		t.Errorf("the plugin's skill is not Install's")
	}
	for _, sh := range shimVerbs {
		if b := files["bin/"+sh.name]; !isShim(b, sh.verb) || !bytes.Contains(b, []byte("exec sotd ")) {
			t.Errorf("the plugin's %s is not the shim of sotd %s on PATH: %q", sh.name, sh.verb, b)
		}
	}
}
