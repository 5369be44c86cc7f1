package hooks

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/internal/testutil"
)

// realTrust is the trusted_hash the real Codex 0.171 wrote into config.toml for
// each hook of `sotd hooks install --codex` (sotd on PATH) when a person chose
// "Trust all" in its /hooks screen, by its event's label and group.
var realTrust = map[string]string{
	"user_prompt_submit:0": "sha256:3fb9e820646e61abeff623148fbb4efa3fe9108bb26e29237af058bb07d0e79e",
	"pre_tool_use:0":       "sha256:82cb50cca81796c9e9ce7befd8528a9f4fbf0665997f2307625fc435072f0c7b",
	"permission_request:0": "sha256:1ed9d98d71b6fb88187c4691e559568a37488ae0665e8d27dfdd161d2d58dcc5",
	"post_tool_use:0":      "sha256:6dd70ba4c0155c3d863993b3471f4da250d70c2f4892d9f8eac7835e14ef08c9",
	"stop:0":               "sha256:fa7a6ada6336983c36b3147832085125f8de0cc4d71d1a12f668f956eb5c1d54",
	"session_start:0":      "sha256:11ceed01e0470a49b0a5b0429fc6266c808fd5fb9f22f89f8faa4bf9ec41d07a", // sotd hook wait --codex
	"stop:1":               "sha256:a107d7617c8000f338a02ebb955f112ad7f71bca072d1c5e4bab59bba97e57ef", // sotd hook wait --codex
}

// trustAll writes config.toml as Codex does after "Trust all": one
// [hooks.state] table per hook of hooks.json at settings, at its group.
func trustAll(t *testing.T, settings, extra string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("model = \"gpt-5\"\n\n[hooks.state]\n")
	for label, hash := range realTrust {
		fmt.Fprintf(&b, "\n[hooks.state.%q]\ntrusted_hash = %q\n", settings+":"+label+":0", hash)
	}
	b.WriteString(extra)
	if err := os.WriteFile(filepath.Join(filepath.Dir(settings), "config.toml"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func trusts(t *testing.T, settings string) map[string]Trust {
	t.Helper()
	ct, err := ReadCodexTrust(settings)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Trust{}
	for _, h := range ct.Hooks {
		_, args, _ := strings.Cut(h.Command, " hook ")
		got[h.Event+" "+args] = h.Trust
	}
	return got
}

func allAre(t *testing.T, got map[string]Trust, want Trust) {
	t.Helper()
	if len(got) != len(specs[Codex]) {
		t.Errorf("found %d sotd hooks (%v), want %d", len(got), got, len(specs[Codex]))
	}
	for ev, tr := range got {
		if tr != want {
			t.Errorf("%s is %s, want %s", ev, tr, want)
		}
	}
}

// untrusted installs sotd's Codex hooks with --no-trust.
func untrusted(t *testing.T, c *testutil.Clock, settings, sotd string) string {
	t.Helper()
	return installAs(t, c, Install{Agent: Codex, Settings: settings, Sotd: sotd, NoTrust: true})
}

// Trust as Codex records it: none after an install with --no-trust; every hook
// trusted with the hashes the real Codex wrote; a reinstall that keeps the
// commands keeps the trust, one that changes them (another sotd) needs review
// again; a hook turned off, or Codex's hooks feature off, is told.
func TestReadCodexTrust(t *testing.T) {
	c := newClock()
	dir := t.TempDir()
	settings := filepath.Join(dir, "hooks.json")
	untrusted(t, c, settings, "sotd")
	allAre(t, trusts(t, settings), Untrusted)

	trustAll(t, settings, "")
	allAre(t, trusts(t, settings), Trusted)

	untrusted(t, c, settings, "sotd")
	allAre(t, trusts(t, settings), Trusted)

	untrusted(t, c, settings, "/opt/sotd/bin/sotd")
	allAre(t, trusts(t, settings), Modified)

	untrusted(t, c, settings, "sotd")
	trustAll(t, settings, "\n[features]\nhooks = false\n")
	ct, err := ReadCodexTrust(settings)
	if err != nil || !ct.FeatureOff {
		t.Errorf("features.hooks = false read as FeatureOff %v (%v)", ct.FeatureOff, err)
	}
}

// With --no-trust the install says which hooks wait for a person's trust and
// how to give it; and always to run codex --no-daemon. A second install writes
// hooks.json byte for byte as the first did, so the trust given holds.
func TestInstallTellsCodexTrust(t *testing.T) {
	c := newClock()
	dir := t.TempDir()
	settings := filepath.Join(dir, "hooks.json")
	out := untrusted(t, c, settings, "sotd")
	for _, want := range []string{"not trusted yet: UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, Stop, SessionStart.", `"Trust all and continue"`, "codex --no-daemon"} {
		if !strings.Contains(out, want) {
			t.Errorf("the first install's output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "config.toml")); err == nil {
		t.Error("an install with --no-trust wrote config.toml")
	}
	first, _ := os.ReadFile(settings)
	trustAll(t, settings, "")
	out = untrusted(t, c, settings, "sotd")
	if again, _ := os.ReadFile(settings); string(again) != string(first) {
		t.Errorf("the second install rewrote hooks.json:\n%s\nwas:\n%s", again, first)
	}
	if strings.Contains(out, "not trusted") || !strings.Contains(out, "codex --no-daemon") {
		t.Errorf("the install after trust says:\n%s", out)
	}
	trustAll(t, settings, "\n[features]\nhooks = false\n")
	if out = untrusted(t, c, settings, "sotd"); !strings.Contains(out, "hooks feature is off") {
		t.Errorf("the install with hooks off says:\n%s", out)
	}
}

// A hook turned off in /hooks is Disabled, whatever its hash.
func TestReadCodexTrustDisabled(t *testing.T) {
	c := newClock()
	dir := t.TempDir()
	settings := filepath.Join(dir, "hooks.json")
	install(t, c, Codex, settings, "sotd")
	trustAll(t, settings, "")
	cfg := filepath.Join(dir, "config.toml")
	b, _ := os.ReadFile(cfg)
	key := fmt.Sprintf("[hooks.state.%q]\n", settings+":stop:0:0")
	os.WriteFile(cfg, []byte(strings.Replace(string(b), key, key+"enabled = false\n", 1)), 0o600)
	if got := trusts(t, settings)["Stop stop"]; got != Disabled {
		t.Errorf("Stop is %s, want disabled", got)
	}
}

// Codex keys trust by the hook's place: a person's own Stop hook ahead of
// sotd's puts sotd's in group 1, and its trust under :stop:1:0.
func TestReadCodexTrustKeysByPlace(t *testing.T) {
	c := newClock()
	dir := t.TempDir()
	settings := filepath.Join(dir, "hooks.json")
	if err := os.WriteFile(settings, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	install(t, c, Codex, settings, "sotd")
	ct, err := ReadCodexTrust(settings)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range ct.Hooks {
		if h.Command == "sotd hook stop" && h.Key != settings+":stop:1:0" {
			t.Errorf("Stop's key %q, want %q", h.Key, settings+":stop:1:0")
		}
	}
	cfg := fmt.Sprintf("[hooks.state.%q]\ntrusted_hash = %q\n", settings+":stop:1:0", realTrust["stop:0"])
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o600)
	if got := trusts(t, settings)["Stop stop"]; got != Trusted {
		t.Errorf("Stop at group 1 is %s, want trusted", got)
	}
}

// A Codex home reached through a symlink: the real Codex 0.171 keys trust by
// the path it resolves to, and so does ReadCodexTrust.
func TestReadCodexTrustSymlinkedHome(t *testing.T) {
	c := newClock()
	real := filepath.Join(t.TempDir(), "codex")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	untrusted(t, c, filepath.Join(link, "hooks.json"), "sotd")
	ct, err := ReadCodexTrust(filepath.Join(link, "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(real, "hooks.json") + ":stop:1:0"; ct.Hooks[len(ct.Hooks)-1].Key != want {
		t.Errorf("untrusted Stop's key %q, want the resolved path's %q", ct.Hooks[len(ct.Hooks)-1].Key, want)
	}
	trustAll(t, filepath.Join(real, "hooks.json"), "")
	allAre(t, trusts(t, filepath.Join(link, "hooks.json")), Trusted)

	// The install's own records are keyed as Codex keys them.
	os.Remove(filepath.Join(real, "config.toml"))
	install(t, c, Codex, filepath.Join(link, "hooks.json"), "sotd")
	allAre(t, trusts(t, filepath.Join(link, "hooks.json")), Trusted)
}

// The hash takes a hook's own timeout, status message and matcher, and writes
// strings as serde_json does.
func TestCodexHookHashForm(t *testing.T) {
	for _, tc := range []struct{ event, group, handler, want string }{
		{"Stop", `{"hooks":[]}`, `{"type":"command","command":"sotd hook stop"}`, realTrust["stop:0"]},
		{"Stop", `{"matcher":"x","hooks":[]}`, `{"type":"command","command":"sotd hook stop","timeout":600}`, realTrust["stop:0"]},
		{"PreToolUse", `{"matcher":"Bash","hooks":[]}`, `{"type":"command","command":"sotd hook pretool"}`, realTrust["pre_tool_use:0"]},
	} {
		g, _ := parseObject([]byte(tc.group))
		h, _ := parseObject([]byte(tc.handler))
		if got := codexHookHash(tc.event, g, h); got != tc.want {
			t.Errorf("%s %s %s: %s, want %s", tc.event, tc.group, tc.handler, got, tc.want)
		}
	}
	if got, want := serdeString("a\"b\\c\n\x01<>&\u2028é"), "\"a\\\"b\\\\c\\n\\u0001<>&\u2028é\""; got != want {
		t.Errorf("serdeString = %s, want %s", got, want)
	}
}

// The hooks' command names one sotd the same way however it was started: by
// its own path or through a link to it, "sotd" when that name on PATH is it.
// Codex trusts a hook by its command, so any other answer would need review.
func TestSotdCommandIsStable(t *testing.T) {
	exe, err := filepath.EvalSymlinks(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	links := t.TempDir()
	alias := filepath.Join(links, "sotd-alias")
	onPath := filepath.Join(t.TempDir(), "sotd")
	for _, l := range []string{alias, onPath} {
		if err := os.Symlink(exe, l); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	run := func(bin, path string) string {
		cmd := exec.Command(bin, "-test.run=^TestHelperProcess$")
		cmd.Env = append(os.Environ(), helperEnv+"=sotdcommand", "PATH="+path)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", bin, err)
		}
		return strings.TrimSpace(string(out))
	}
	want := shellQuote(exe)
	for _, bin := range []string{exe, alias} {
		if got := run(bin, links); got != want {
			t.Errorf("started as %s, no sotd on PATH: %q, want %q", bin, got, want)
		}
		if got := run(bin, filepath.Dir(onPath)); got != "sotd" {
			t.Errorf("started as %s, this sotd on PATH: %q, want sotd", bin, got)
		}
	}
}
