package home

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
)

func TestCheckHandle(t *testing.T) {
	for _, tc := range []struct {
		name, h string
		ok      bool
	}{
		{"plain", "MyRepo-myhost", true},
		{"dots and underscores", "a.b_c-d", true},
		{"64 chars", strings.Repeat("a", 64), true},
		{"65 chars", strings.Repeat("a", 65), false},
		{"empty", "", false},
		{"dot", ".", false},
		{"dotdot", "..", false},
		{"three dots are a name", "...", true},
		{"slash", "a/b", false},
		{"traversal", "../x", false},
		{"backslash", `a\b`, false},
		{"nul", "a\x00b", false},
		{"newline", "a\nb", false},
		{"escape", "a\x1bb", false},
		{"space", "a b", false},
		{"unicode", "héllo", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckHandle(tc.h)
			if (err == nil) != tc.ok {
				t.Fatalf("CheckHandle(%q) = %v, want ok=%v", tc.h, err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrBadHandle) {
				t.Fatalf("error %v does not wrap ErrBadHandle", err)
			}
		})
	}
}

func TestHandlePathRefusesWhatCheckHandleRefuses(t *testing.T) {
	h := Home{Dir: t.TempDir()}
	for _, bad := range []string{"../etc/passwd", "a/b", "..", "x\x00"} {
		for k := Inbox; k <= LockFaultTick; k++ {
			if p, err := h.HandlePath(k, bad); err == nil {
				t.Fatalf("HandlePath(%d, %q) = %q, want a refusal", k, bad, p)
			}
		}
	}
	p, err := h.HandlePath(Inbox, "ok-1")
	if err != nil || p != filepath.Join(h.Dir, "inbox", "ok-1.jsonl") {
		t.Fatalf("HandlePath(Inbox, ok-1) = %q, %v", p, err)
	}
}

func TestAtRefusesDangerousHomes(t *testing.T) {
	u, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no user home")
	}
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"/", u, repo} {
		if _, err := At(dir); err == nil {
			t.Errorf("At(%q) accepted a home it must refuse", dir)
		}
	}
	if _, err := At(filepath.Join(t.TempDir(), "comm")); err != nil {
		t.Errorf("At(fresh folder) = %v", err)
	}
}

func TestResolveMakesRelativeAbsolute(t *testing.T) {
	t.Setenv(EnvHome, "rel-home")
	h, err := Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(h.Dir) || filepath.Base(h.Dir) != "rel-home" {
		t.Fatalf("Resolve() = %q, want an absolute path ending in rel-home", h.Dir)
	}
}

func TestEnsureAndCloseModes(t *testing.T) {
	h := Home{Dir: filepath.Join(t.TempDir(), "comm")}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(h.Dir, "inbox", "x.jsonl")
	if err := os.WriteFile(open, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(h.Dir, "read"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(h.Dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := h.CloseModes(); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{
		h.Dir:                         DirMode,
		filepath.Join(h.Dir, "inbox"): DirMode,
		filepath.Join(h.Dir, "read"):  DirMode,
		open:                          FileMode,
		bin:                           0o755,
	} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s is %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
}

func TestSelfFileRoundTrip(t *testing.T) {
	h := Home{Dir: t.TempDir()}
	if _, ok, err := h.ReadSelf("box", Slot{}); ok || err != nil {
		t.Fatalf("ReadSelf on an empty home = %v, %v", ok, err)
	}
	want := Self{Name: "Repo-box", Repo: "Repo", Root: "/src/Repo"}
	if err := h.WriteSelf("box", Slot{}, want); err != nil {
		t.Fatal(err)
	}
	if filepath.Base(h.SelfPath("box", Slot{})) != "box__nopane.txt" {
		t.Fatalf("self path %s", h.SelfPath("box", Slot{}))
	}
	got, ok, err := h.ReadSelf("box", Slot{})
	if err != nil || !ok || got != want {
		t.Fatalf("ReadSelf = %+v, %v, %v; want %+v", got, ok, err, want)
	}
	if err := h.WriteSelf("box", Slot{Row: "ws-1"}, Self{Name: "../evil"}); err == nil {
		t.Fatal("WriteSelf accepted a bad handle")
	}
	if got := filepath.Base(h.SelfPath("a:b", Slot{Row: "ws:1"})); got != "a.b__ws.1.txt" {
		t.Fatalf("':' not written '.': %s", got)
	}
}

// TestPrivateSelfNames keeps a private pin's name from ever reading as a row's
// <host>__<id>.txt, whatever the host is called, and lists each private pin of
// one host by its key, with its boot.
func TestPrivateSelfNames(t *testing.T) {
	h := Home{Dir: t.TempDir()}
	key := ProcKey(KeyAgent, 4242, "987654")
	for _, host := range []string{"box", "a__b", "a___b", "x_", "_y", "a/_b", "a:_b"} {
		name := filepath.Base(h.SelfPath(host, Slot{Key: key}))
		if strings.Contains(name, "__") {
			t.Errorf("host %q: private pin %s holds __, so it parses as <host>__<id>.txt", host, name)
		}
	}
	if got := filepath.Base(h.SelfPath("box", Slot{Key: key})); got != "box--agent-4242-987654.txt" {
		t.Errorf("private pin name = %s", got)
	}
	// A row's pin wins over a key: a process in a row is pinned as the protocol says.
	if got := filepath.Base(h.SelfPath("box", Slot{Row: "ws-1", Key: key})); got != "box__ws-1.txt" {
		t.Errorf("row pin with a key = %s", got)
	}
	pins := map[string]Self{
		ProcKey(KeyAgent, 1, "10"): {Name: "A-box", Repo: "A", Root: "/p/A", Boot: "b1"},
		ProcKey(KeyTerm, 2, "20"):  {Name: "B-box", Repo: "B", Root: "/p/B"},
		"root-0123456789ab":        {Name: "C-box", Repo: "C", Root: "/p/C"},
	}
	for k, s := range pins {
		if err := h.WriteSelf("box", Slot{Key: k}, s); err != nil {
			t.Fatal(err)
		}
	}
	// Another host's private pin, a row's pin and the shared one are not listed.
	if err := h.WriteSelf("other", Slot{Key: ProcKey(KeyAgent, 3, "30")}, Self{Name: "D-other"}); err != nil {
		t.Fatal(err)
	}
	if err := h.WriteSelf("box", Slot{Row: "ws-1"}, Self{Name: "E-box"}); err != nil {
		t.Fatal(err)
	}
	if err := h.WriteSelf("box", Slot{}, Self{Name: "F-box"}); err != nil {
		t.Fatal(err)
	}
	got, err := h.PrivateSelves("box")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(pins) {
		t.Fatalf("PrivateSelves = %+v, want the %d pins of box", got, len(pins))
	}
	for _, p := range got {
		if want, ok := pins[p.Key]; !ok || p.Self != want {
			t.Errorf("pin %s = %+v, want %+v", p.Key, p.Self, want)
		}
	}
}

func TestParseProcKey(t *testing.T) {
	for _, tc := range []struct {
		key   string
		ok    bool
		kind  string
		pid   int
		start string
	}{
		{"agent-12-345", true, KeyAgent, 12, "345"},
		{"term-7-1", true, KeyTerm, 7, "1"},
		{"root-abcdef", false, "", 0, ""},
		{"agent-0-1", false, "", 0, ""},
		{"agent-012-1", false, "", 0, ""},
		{"agent-12", false, "", 0, ""},
		{"agent-x-1", false, "", 0, ""},
		{"other-1-2", false, "", 0, ""},
	} {
		kind, pid, start, ok := ParseProcKey(tc.key)
		if ok != tc.ok || kind != tc.kind || pid != tc.pid || start != tc.start {
			t.Errorf("ParseProcKey(%q) = %q %d %q %v", tc.key, kind, pid, start, ok)
		}
	}
}

func TestEnvSeconds(t *testing.T) {
	t.Setenv("SOT_X", "1.5")
	if d := EnvSeconds("SOT_X", 0); d.Milliseconds() != 1500 {
		t.Fatalf("EnvSeconds(1.5) = %v", d)
	}
	t.Setenv("SOT_X", "junk")
	if d := EnvSeconds("SOT_X", 7); d != 7 {
		t.Fatalf("EnvSeconds(junk) = %v, want the default", d)
	}
}
