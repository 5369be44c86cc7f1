package registry

import (
	"strings"
	"testing"

	"github.com/sotcomm/sotd/home"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"MyRepo", 20, "MyRepo"},
		{"Ship of Tools", 20, "Ship-of-Tools"},
		{"my--repo", 20, "my-repo"},
		{"--a--", 20, "a"},
		{"a/b\\c:d", 20, "a-b-c-d"},
		{"...", 20, "..."},
		{".", 20, "."},
		{"", 20, "x"},
		{"---", 20, "x"},
		{"日本語", 20, "x"},
		{"café-ü", 20, "caf"},
		{"über mensch", 20, "ber-mensch"},
		{"aaaaaaaaaaaaaaaaaaaaaaaaa", 20, "aaaaaaaaaaaaaaaaaaaa"},
		{"abcdefghijklmnopqrs-uvwxyz", 20, "abcdefghijklmnopqrs"},
		{"Mixed.Case_Name", 20, "Mixed.Case_Name"},
		{"averyveryverylonghostname", 12, "averyveryver"},
	}
	for _, tc := range tests {
		if got := Sanitize(tc.in, tc.max); got != tc.want {
			t.Errorf("Sanitize(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestHostPart(t *testing.T) {
	tests := []struct{ in, want string }{
		{"myhost", "myhost"},
		{"MyHost", "MyHost"},
		{"twelve-chars", "twelve-chars"},
		{"averyveryverylonghostname", "averyveryver-5b2c20"},
		{"my host", "my-host-88dd88"},
		{"box.example.com", "box.example.-11d10a"}, // only a '-' is trimmed after the cut
		{"", "x-e3b0c4"},
	}
	for _, tc := range tests {
		if got := HostPart(tc.in); got != tc.want {
			t.Errorf("HostPart(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTiers(t *testing.T) {
	tests := []struct {
		root, host string
		want       [3]string
	}{
		{"/home/u/src/MyRepo", "box", [3]string{"MyRepo-box", "MyRepo-src-box", "MyRepo-92fbe8-box"}},
		{"/home/u/src/MyRepo/", "box", [3]string{"MyRepo-box", "MyRepo-src-box", "MyRepo-" + hash6("/home/u/src/MyRepo/") + "-box"}},
		{"/w/My Analysis-wt-rotation", "my host", [3]string{"My-Analysis-wt-rotat-my-host-88dd88", "My-Analysis-wt-rotat-w-my-host-88dd88", "My-Analysis-wt-rotat-" + hash6("/w/My Analysis-wt-rotation") + "-my-host-88dd88"}},
		{"/", "box", [3]string{"x-box", "x-x-box", "x-" + hash6("/") + "-box"}},
		{"/srv/...", "box", [3]string{"...-box", "...-srv-box", "...-" + hash6("/srv/...") + "-box"}},
	}
	for _, tc := range tests {
		got := Tiers(tc.root, tc.host)
		if got != tc.want {
			t.Errorf("Tiers(%q, %q) = %q, want %q", tc.root, tc.host, got, tc.want)
		}
		for _, h := range got {
			if err := home.CheckHandle(h); err != nil {
				t.Errorf("derived %q: %v", h, err)
			}
		}
	}
}

func TestDeriveHandle(t *testing.T) {
	const root, other = "/home/u/src/MyRepo", "/mnt/src/MyRepo"
	t1, t2, t3 := "MyRepo-box", "MyRepo-src-box", "MyRepo-92fbe8-box"
	held := func(pairs ...string) *Doc {
		d := &Doc{Agents: map[string]*Entry{}}
		for i := 0; i < len(pairs); i += 2 {
			d.Agents[pairs[i]] = &Entry{Root: pairs[i+1]}
		}
		return d
	}
	bound := func(name, root, row string) *Doc {
		return &Doc{Agents: map[string]*Entry{name: {Root: root, WorkspaceID: row}}}
	}
	tests := []struct {
		name string
		doc  *Doc
		row  string
		want string
		tier int
	}{
		{"free", held(), "", t1, 1},
		{"ours: a join reclaims", held(t1, root), "", t1, 1},
		{"another project's", held(t1, other), "", t2, 2},
		{"a row with no root", held(t1, ""), "", t2, 2},
		{"tier 2 is ours", held(t1, other, t2, root), "", t2, 2},
		{"two taken", held(t1, other, t2, other), "", t3, 3},
		{"all taken", held(t1, other, t2, other, t3, other), "", "", 0},
		{"ours but bound to a row, from outside it", bound(t1, root, "ws-1"), "", t2, 2},
		{"ours and bound to this row", bound(t1, root, "ws-1"), "ws-1", t1, 1},
		{"ours and bound to another row", bound(t1, root, "ws-1"), "ws-2", t2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if h, tier := DeriveHandle(root, "box", tc.row, tc.doc, nil); h != tc.want || tier != tc.tier {
				t.Errorf("DeriveHandle = %q, %d; want %q, %d", h, tier, tc.want, tc.tier)
			}
		})
	}
}

// The daemon's ruling holds a tier the registry would give.
func TestDeriveHandleStepsPastATierTheDaemonHolds(t *testing.T) {
	d := &Doc{Agents: map[string]*Entry{}}
	held := func(h string) Ruling {
		if h == "MyRepo-box" {
			return Held
		}
		return NoRuling
	}
	if h, tier := DeriveHandle("/home/u/src/MyRepo", "box", "", d, held); h != "MyRepo-src-box" || tier != 2 {
		t.Errorf("DeriveHandle = %q, %d; want the second tier", h, tier)
	}
}

// A tier the registry binds to a row the daemon has seen end is the project's
// own again (sotd run in a folder whose last row was removed takes its handle
// back), but only the project's: another project's handle stays held.
func TestDeriveHandleTakesATierTheDaemonClears(t *testing.T) {
	const root = "/home/u/src/MyRepo"
	cleared := func(string) Ruling { return Cleared }
	for _, tc := range []struct {
		name, root, want string
		tier             int
	}{
		{"this project's", root, "MyRepo-box", 1},
		{"another project's", "/mnt/src/MyRepo", "MyRepo-src-box", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &Doc{Agents: map[string]*Entry{"MyRepo-box": {Root: tc.root, WorkspaceID: "ws-ended"}}}
			if h, tier := DeriveHandle(root, "box", "", d, cleared); h != tc.want || tier != tc.tier {
				t.Errorf("DeriveHandle = %q, %d; want %q, %d", h, tier, tc.want, tc.tier)
			}
		})
	}
}

// A row that is not an object holds its name like a row with no root.
func TestDeriveStepsPastAnOddRow(t *testing.T) {
	d, err := Parse([]byte(`{"agents":{"MyRepo-box":7}}`))
	if err != nil {
		t.Fatal(err)
	}
	if h, tier := DeriveHandle("/home/u/src/MyRepo", "box", "", d, nil); h != "MyRepo-src-box" || tier != 2 {
		t.Errorf("DeriveHandle = %q, %d", h, tier)
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", ".", "..", "...", "-", "a--b", "日本語", "My Repo", strings.Repeat("ab-", 20), "\x00/\\:", "x\xff"} {
		f.Add(s, uint8(20))
		f.Add(s, uint8(12))
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, s string, max uint8) {
		n := int(max%64) + 1
		out := Sanitize(s, n)
		if out == "" || len(out) > n || strings.Contains(out, "--") || strings.HasPrefix(out, "-") || strings.HasSuffix(out, "-") {
			t.Fatalf("Sanitize(%q, %d) = %q", s, n, out)
		}
		for i := 0; i < len(out); i++ {
			if !home.IsHandleByte(out[i]) {
				t.Fatalf("Sanitize(%q, %d) = %q has byte %q", s, n, out, out[i])
			}
		}
		if again := Sanitize(out, n); again != out {
			t.Fatalf("Sanitize is not idempotent: %q -> %q -> %q", s, out, again)
		}
		hp := HostPart(s)
		if (hp == s) != (Sanitize(s, HostMax) == s) {
			t.Fatalf("HostPart(%q) = %q: a suffix must mark exactly a changed name", s, hp)
		}
		for _, h := range Tiers("/p/"+s, s) {
			if err := home.CheckHandle(h); err != nil || len(h) > 61 {
				t.Fatalf("Tiers(%q): %q: %v", s, h, err)
			}
		}
		for _, h := range Tiers(s, s) {
			if err := home.CheckHandle(h); err != nil {
				t.Fatalf("Tiers(%q): %q: %v", s, h, err)
			}
		}
	})
}
