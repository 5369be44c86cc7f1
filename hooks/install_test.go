package hooks

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

func install(t *testing.T, c *clock, agent Agent, settings, sotd string) string {
	t.Helper()
	var out bytes.Buffer
	if code := (Install{Agent: agent, Settings: settings, Sotd: sotd, Out: &out, Now: c.now}).Run(); code != ExitOK {
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
	if !strings.HasSuffix(out, "nothing changed: every sotd hook is already installed\n") {
		t.Errorf("a second run said:\n%s", out)
	}
	if again, _ := os.ReadFile(p); !bytes.Equal(again, after) {
		t.Error("a second run changed the file")
	}
	if got := names(t, dir); len(got) != 2 {
		t.Errorf("the folder holds %q; a run that changes nothing keeps no backup", got)
	}

	install(t, c, Claude, p, "/opt/sotd/bin/sotd")
	if got := names(t, dir); len(got) != 3 || got[2] != "settings.json.bak.20260615T193213Z-2" {
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
