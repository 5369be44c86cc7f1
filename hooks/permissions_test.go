package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// allowOf is a settings file's permissions.allow.
func allowOf(t *testing.T, p string) []string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	root, err := parseObject(b)
	if err != nil {
		t.Fatal(err)
	}
	raw, ok := root.get("permissions")
	if !ok {
		return nil
	}
	perms, _ := parseObject(raw)
	raw, ok = perms.get("allow")
	if !ok {
		return nil
	}
	var allow []string
	if err := json.Unmarshal(raw, &allow); err != nil {
		t.Fatal(err)
	}
	return allow
}

// The rules go at the end of the person's allow list, once; the person's own
// rules, deny list and keys stay where they were; a second install adds none;
// uninstall takes out exactly sotd's, even from a file edited since.
func TestInstallPermissions(t *testing.T) {
	c := newClock()
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	own := []string{"Bash(make:*)", "Read(~/notes/**)"}
	os.WriteFile(p, []byte(`{"permissions": {"allow": ["Bash(make:*)", "Read(~/notes/**)"], "deny": ["Bash(rm:*)"], "defaultMode": "default"}, "model": "opus"}`), 0o644)

	out := install(t, c, Claude, p, "sotd")
	if want := "  added      permissions.allow: " + strings.Join(PermissionRules(), ", ") + "\n"; !strings.Contains(out, want) {
		t.Errorf("install said:\n%s\nwant the line\n%s", out, want)
	}
	if !strings.Contains(out, "without asking: the rules are in "+p+"'s permissions.allow") {
		t.Errorf("install does not say what the rules do:\n%s", out)
	}
	if got, want := allowOf(t, p), append(slices.Clone(own), PermissionRules()...); !slices.Equal(got, want) {
		t.Errorf("allow %q, want %q", got, want)
	}
	b, _ := os.ReadFile(p)
	if !bytes.Contains(b, []byte(`"deny": [`)) || !bytes.Contains(b, []byte(`"defaultMode": "default"`)) || bytes.Index(b, []byte(`"permissions"`)) > bytes.Index(b, []byte(`"model"`)) {
		t.Errorf("the person's permissions did not stay as and where they were:\n%s", b)
	}
	c.Add(time.Second)
	if out := install(t, c, Claude, p, "sotd"); !strings.Contains(out, "  unchanged  permissions.allow: ") || !strings.Contains(out, "nothing changed") {
		t.Errorf("a second install said:\n%s", out)
	}

	// An edit since the install: no backup gives the bytes back, and only
	// sotd's rules go.
	edited := bytes.Replace(b, []byte(`"opus"`), []byte(`"sonnet"`), 1)
	os.WriteFile(p, edited, 0o644)
	c.Add(time.Second)
	out = uninstall(t, c, Claude, p)
	if !strings.Contains(out, "  removed    permissions.allow: "+strings.Join(PermissionRules(), ", ")+"\n") {
		t.Errorf("uninstall said:\n%s", out)
	}
	if got := allowOf(t, p); !slices.Equal(got, own) {
		t.Errorf("after uninstall allow %q, want the person's own %q", got, own)
	}
}

// --no-permissions adds no rule and says what that costs; run over an install
// that added them, it takes them out. A file without rules keeps no empty
// permissions object.
func TestInstallNoPermissions(t *testing.T) {
	c := newClock()
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	run := func(no bool) string {
		var out bytes.Buffer
		if code := (Install{Agent: Claude, Settings: p, Sotd: "sotd", Home: commHome(t, p), NoPermissions: no, Out: &out, Now: c.Now}).Run(); code != ExitOK {
			t.Fatalf("install: exit %d: %s", code, out.String())
		}
		c.Add(time.Second)
		return out.String()
	}
	out := run(true)
	if strings.Contains(out, "permissions.allow:") || !strings.Contains(out, "Claude Code asks before it runs sotd's mail verbs (--no-permissions)") {
		t.Errorf("install --no-permissions said:\n%s", out)
	}
	if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("permissions")) {
		t.Errorf("install --no-permissions wrote rules:\n%s", b)
	}
	run(false)
	if len(allowOf(t, p)) != len(PermissionRules()) {
		t.Fatalf("install added %q", allowOf(t, p))
	}
	if out := run(true); !strings.Contains(out, "  removed    permissions.allow: ") {
		t.Errorf("install --no-permissions over the rules said:\n%s", out)
	}
	if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("permissions")) {
		t.Errorf("the rules' removal left:\n%s", b)
	}
}

// A permissions value that is not an object, or an allow that is not a list,
// is never rewritten.
func TestInstallPermissionsRefusesOddShapes(t *testing.T) {
	for _, body := range []string{`{"permissions": []}`, `{"permissions": {"allow": "Bash"}}`} {
		c := newClock()
		p := filepath.Join(t.TempDir(), "settings.json")
		os.WriteFile(p, []byte(body), 0o644)
		var out bytes.Buffer
		if code := (Install{Agent: Claude, Settings: p, Sotd: "sotd", Home: commHome(t, p), Out: &out, Now: c.Now}).Run(); code != ExitFailed || !strings.Contains(out.String(), "fix it by hand; nothing was changed") {
			t.Errorf("%s: exit %d, %s", body, code, out.String())
		}
		if b, _ := os.ReadFile(p); string(b) != body {
			t.Errorf("%s was rewritten as %s", body, b)
		}
	}
}

// The rules cover each mail verb as sotd's and as its shim, and stay narrow:
// one command each, its words literal but a trailing " *" (Claude Code 2.1.332's
// auto mode sets aside a bare Bash or an interpreter's rule, and any "*" inside
// would widen it), and no verb that changes anything but the session's own mail.
func TestPermissionRulesAreNarrow(t *testing.T) {
	rules := PermissionRules()
	for _, s := range shimVerbs {
		has := slices.Contains(rules, "Bash("+s.name+" *)")
		if has != slices.Contains(mailVerbs, s.verb) {
			t.Errorf("%s (%s): a rule %v, want one exactly for a mail verb", s.name, s.verb, has)
		}
	}
	for _, v := range mailVerbs {
		if !slices.Contains(rules, "Bash(sotd "+v+" *)") {
			t.Errorf("no rule for sotd %s", v)
		}
	}
	for _, r := range rules {
		cmd, ok := strings.CutPrefix(r, "Bash(")
		if !ok {
			if r != "mcp__sot-comm" {
				t.Errorf("rule %q is neither a Bash rule nor the sot-comm server's", r)
			}
			continue
		}
		cmd, ok = strings.CutSuffix(cmd, " *)")
		if !ok || strings.ContainsAny(cmd, "*:()") || !(strings.HasPrefix(cmd, "sotd ") || strings.HasPrefix(cmd, "comm-")) {
			t.Errorf("rule %q is not one literal sotd command with a trailing \" *\"", r)
		}
	}
	if slices.Contains(mailVerbs, "lock-clear") {
		t.Error("lock-clear breaks a registry lock: a person's call, not a rule's")
	}
}

// Codex's rules are a file of sotd's own beside hooks.json: an install writes
// it (not with --no-permissions), uninstall removes it and the rules folder it
// made; a rules file of the person's under that name is never touched. The
// real Codex, where it is on PATH, reads it as allowing each mail verb and
// shim and nothing else.
func TestCodexRules(t *testing.T) {
	c := newClock()
	dir := t.TempDir()
	settings := filepath.Join(dir, "hooks.json")
	rules := CodexRulesPath(settings)
	out := install(t, c, Codex, settings, "sotd")
	if !strings.Contains(out, rules+":\n  added      rules: Codex runs sotd's mail verbs and their shims outside its sandbox, with no approval\n") {
		t.Errorf("install said:\n%s", out)
	}
	if b, err := os.ReadFile(rules); err != nil || !bytes.Equal(b, codexRules()) {
		t.Fatalf("%s holds %q, %v", rules, b, err)
	}
	if codex, err := exec.LookPath("codex"); err == nil {
		for _, tc := range []struct {
			argv  []string
			allow bool
		}{
			{[]string{"sotd", "poll"}, true},
			{[]string{"sotd", "send", "@a-box", "hi there"}, true},
			{[]string{"comm-poll.sh"}, true},
			{[]string{"comm-send.sh", "@a-box", "hi"}, true},
			{[]string{"sotd", "lock-clear"}, false},
			{[]string{"comm-registry-lock-clear.sh"}, false},
			{[]string{"sotd", "serve"}, false},
			{[]string{"rm", "-rf", "x"}, false},
		} {
			b, err := exec.Command(codex, append([]string{"execpolicy", "check", "--rules", rules, "--"}, tc.argv...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("codex execpolicy check %q: %v: %s", tc.argv, err, b)
			}
			if got := strings.Contains(string(b), `"decision":"allow"}`); got != tc.allow {
				t.Errorf("codex execpolicy check %q: %s, want allowed %v", tc.argv, b, tc.allow)
			}
		}
	}
	out = uninstall(t, c, Codex, settings)
	if !strings.Contains(out, rules+":\n  removed    rules: ") {
		t.Errorf("uninstall said:\n%s", out)
	}
	if _, err := os.Stat(filepath.Dir(rules)); !os.IsNotExist(err) {
		t.Errorf("the rules folder is left: %v", err)
	}

	var o bytes.Buffer
	if code := (Install{Agent: Codex, Settings: settings, Sotd: "sotd", Home: commHome(t, settings), NoPermissions: true, Out: &o, Now: c.Now}).Run(); code != ExitOK {
		t.Fatalf("install --no-permissions: %d %s", code, o.String())
	}
	if _, err := os.Stat(rules); !os.IsNotExist(err) || !strings.Contains(o.String(), "each needs a person's approval") {
		t.Errorf("install --no-permissions wrote %s (%v) or did not say what that costs:\n%s", rules, err, o.String())
	}

	mine := []byte("prefix_rule(pattern = [\"make\"], decision = \"allow\")\n")
	os.MkdirAll(filepath.Dir(rules), 0o755)
	os.WriteFile(rules, mine, 0o644)
	for _, run := range []func() string{
		func() string { return install(t, c, Codex, settings, "sotd") },
		func() string { return uninstall(t, c, Codex, settings) },
	} {
		if out := run(); !strings.Contains(out, "kept       it is not sotd's rules file") {
			t.Errorf("with the person's rules file:\n%s", out)
		}
		if b, _ := os.ReadFile(rules); !bytes.Equal(b, mine) {
			t.Errorf("the person's rules file now holds %q", b)
		}
	}
}
