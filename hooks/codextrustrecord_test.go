package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The install records Codex's trust in the hooks it writes with the very
// hashes the real Codex 0.171 recorded for them at "Trust all", in a person's
// config.toml whose other lines stay as they were; a second install changes
// nothing; the uninstall gives the file its bytes back.
func TestInstallRecordsCodexTrust(t *testing.T) {
	c := newClock()
	dir := t.TempDir()
	settings := filepath.Join(dir, "hooks.json")
	cfg := filepath.Join(dir, "config.toml")
	const mine = `# my Codex
model = "gpt-5" # the one I pay for

[projects."/src/app"]
trust_level = "trusted"

[hooks.state."/elsewhere/hooks.json:stop:0:0"]
trusted_hash = "sha256:mine"
`
	if err := os.WriteFile(cfg, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	out := install(t, c, Codex, settings, "sotd")
	if !strings.Contains(out, cfg+":\n  added      Codex's trust in the 7 sotd hooks above, as written (install with --no-trust") {
		t.Errorf("the install's output does not say it trusted the hooks:\n%s", out)
	}
	if strings.Contains(out, "not trusted yet") {
		t.Errorf("the install still asks for trust:\n%s", out)
	}
	allAre(t, trusts(t, settings), Trusted)
	ct, err := ReadCodexTrust(settings)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range ct.Hooks {
		label := strings.TrimPrefix(h.Key, settings+":")
		label = label[:strings.LastIndex(label, ":")]
		if want := realTrust[label]; h.Hash != want {
			t.Errorf("%s: recorded %s, the real Codex records %s", label, h.Hash, want)
		}
	}
	after, _ := os.ReadFile(cfg)
	if !strings.HasPrefix(string(after), mine+"\n[hooks.state.") {
		t.Errorf("config.toml's own lines changed:\n%s", after)
	}

	if out := install(t, c, Codex, settings, "sotd"); !strings.Contains(out, "  unchanged  Codex's trust in the 7 sotd hooks") {
		t.Errorf("the second install says:\n%s", out)
	}
	if again, _ := os.ReadFile(cfg); string(again) != string(after) {
		t.Errorf("the second install rewrote config.toml:\n%s", again)
	}

	out = uninstall(t, c, Codex, settings)
	if !strings.Contains(out, cfg+":\n  removed    Codex's trust in sotd's hooks: UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, Stop, SessionStart, Stop\n") {
		t.Errorf("the uninstall's output:\n%s", out)
	}
	if b, _ := os.ReadFile(cfg); string(b) != mine {
		t.Errorf("after the uninstall config.toml is:\n%s\nwant:\n%s", b, mine)
	}
}

// A config.toml the install made holds its records alone, and the uninstall
// removes it; --no-trust writes none.
func TestUninstallRemovesTrustFile(t *testing.T) {
	c := newClock()
	dir := t.TempDir()
	settings := filepath.Join(dir, "hooks.json")
	install(t, c, Codex, settings, "sotd")
	uninstall(t, c, Codex, settings)
	if _, err := os.Stat(filepath.Join(dir, "config.toml")); err == nil {
		t.Error("config.toml, which held sotd's records alone, is still there")
	}
}

// A hook changed by hand after the install is not what sotd wrote: the next
// install leaves Codex's trust in it as it was (for the form sotd wrote), says
// so, and Codex reads it as modified; the uninstall leaves a record that does
// not trust sotd's hook as it was.
func TestInstallNeverTrustsAHandEdit(t *testing.T) {
	c := newClock()
	dir := t.TempDir()
	settings := filepath.Join(dir, "hooks.json")
	install(t, c, Codex, settings, "sotd")
	editStopHook(t, settings)
	if got := trusts(t, settings)["Stop stop"]; got != Modified {
		t.Fatalf("the edited Stop hook is %s, want modified", got)
	}
	out := install(t, c, Codex, settings, "sotd")
	if !strings.Contains(out, "  unchanged  Codex's trust in the 6 sotd hooks above") || !strings.Contains(out, "  untrusted  Stop: changed by hand since sotd wrote it, so Codex asks about it\n") {
		t.Errorf("the install over a hand edit says:\n%s", out)
	}
	if got := trusts(t, settings)["Stop stop"]; got != Modified {
		t.Errorf("after the install the edited Stop hook is %s, want modified", got)
	}
}

// A config.toml that records trust in a form the line edit does not follow is
// never written: the install fails, naming --no-trust.
func TestInstallTrustLeavesOtherForms(t *testing.T) {
	c := newClock()
	dir := t.TempDir()
	settings := filepath.Join(dir, "hooks.json")
	untrusted(t, c, settings, "sotd")
	cfg := filepath.Join(dir, "config.toml")
	inline := fmt.Sprintf("[hooks.state]\n%q = { trusted_hash = \"sha256:old\" }\n", settings+":stop:0:0")
	os.WriteFile(cfg, []byte(inline), 0o600)
	var out strings.Builder
	in := Install{Agent: Codex, Settings: settings, Sotd: "sotd", Home: commHome(t, settings), Out: &out, Now: c.Now}
	if code := in.Run(); code != ExitFailed || !strings.Contains(out.String(), "records hook trust in a form sotd does not edit") || !strings.Contains(out.String(), "--no-trust") {
		t.Errorf("exit %d:\n%s", code, out.String())
	}
	if b, _ := os.ReadFile(cfg); string(b) != inline {
		t.Errorf("config.toml was changed:\n%s", b)
	}
}

// editStopHook edits sotd's Stop hook in hooks.json by hand, as a person
// might: a timeout added.
func editStopHook(t *testing.T, settings string) {
	t.Helper()
	b, _ := os.ReadFile(settings)
	edited := strings.Replace(string(b), `"command": "sotd hook stop",`, `"command": "sotd hook stop", "timeout": 5,`, 1)
	if edited == string(b) {
		t.Fatalf("no Stop hook to edit in:\n%s", b)
	}
	if err := os.WriteFile(settings, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
}
