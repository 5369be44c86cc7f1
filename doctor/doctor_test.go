package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/machine"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/registry/reglock"
)

const envHelper = "DOCTOR_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(envHelper) {
	case "exit":
		os.Exit(0)
	case "wait":
		// Live until stdin closes: a process whose command line a test chose.
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// healthyHome is a home as a standalone hub's first start leaves it, with one
// joined agent. No daemon runs: the daemon check is the transcripts' (with a
// real sotd serve), so here it fails and every other check is judged.
func healthyHome(t *testing.T) Env {
	t.Helper()
	dir := t.TempDir()
	h := home.Home{Dir: filepath.Join(dir, "comm")}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	if err := registry.Ensure(h); err != nil {
		t.Fatal(err)
	}
	own, err := filer.OwnManager(h)
	if err != nil {
		t.Skipf("this folder's lock manager cannot be told: %v", err)
	}
	if err := filer.EnsureRecord(h, own, slog.New(slog.DiscardHandler)); err != nil {
		t.Skipf("no lock-manager record can be made here: %v", err)
	}
	now := time.Now()
	if err := registry.Update(h, time.Second, func(d *registry.Doc) error {
		d.Agents["alice"] = &registry.Entry{Host: "box", LastSeen: registry.Stamp(now), StatusAt: registry.Stamp(now)}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return Env{
		Home:      h,
		Host:      "box",
		HostsPath: filepath.Join(dir, "hosts.toml"),
		Socket:    filepath.Join(dir, "no-daemon.sock"),
		GOOS:      runtime.GOOS,
		Now:       time.Now,
		LookPath:  onlyTmux,
		HelloWait: time.Second,
	}
}

// onlyTmux is a PATH with tmux and no agent.
func onlyTmux(name string) (string, error) {
	if name == "tmux" {
		return "/usr/bin/tmux", nil
	}
	return "", exec.ErrNotFound
}

func find(t *testing.T, r Report, name string) Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, r.Checks)
	return Check{}
}

func TestHealthyHome(t *testing.T) {
	r := Run(healthyHome(t))
	for _, c := range r.Checks {
		want := OK
		if c.Name == "daemon" {
			want = Fail
		}
		if c.Level != want || (c.Fix == "") != (want == OK) {
			t.Errorf("%s: %s %q (fix %q), want %s", c.Name, c.Level, c.Detail, c.Fix, want)
		}
	}
	if d := find(t, r, "daemon"); !strings.Contains(d.Fix, "sotd serve") {
		t.Errorf("daemon fix %q does not name sotd serve", d.Fix)
	}
}

// TestBrokenHomes breaks a healthy home one way at a time: the check that
// owns the fault names it and its fix, and the run is not healthy when it fails.
func TestBrokenHomes(t *testing.T) {
	tests := []struct {
		name  string
		brk   func(t *testing.T, e *Env)
		check string
		level Level
		text  string // in the detail
		fix   string // in the fix
	}{
		{
			name: "wrong modes", check: "home modes", level: Fail,
			brk: func(t *testing.T, e *Env) {
				must(t, os.Chmod(e.Home.InboxDir(), 0o755))
				must(t, os.Chmod(e.Home.Registry(), 0o644))
			},
			text: "1 folders not 0700 and 1 files not 0600", fix: "Run: chmod 700 '{home}/inbox'; chmod 600 '{home}/registry.json'",
		},
		{
			name: "the installer's bin keeps its modes", check: "home modes", level: OK,
			brk: func(t *testing.T, e *Env) {
				must(t, os.Mkdir(filepath.Join(e.Home.Dir, "bin"), 0o755))
				must(t, os.WriteFile(filepath.Join(e.Home.Dir, "bin", "comm-send.sh"), nil, 0o755))
				must(t, os.WriteFile(filepath.Join(e.Home.Dir, "VERSION"), nil, 0o644))
			},
			text: "every folder",
		},
		{
			name: "many stale entries", check: "registry", level: Warn,
			brk: func(t *testing.T, e *Env) {
				long := registry.Stamp(time.Now().Add(-40 * 24 * time.Hour))
				must(t, registry.Update(e.Home, time.Second, func(d *registry.Doc) error {
					for i := range manyStale {
						d.Agents[fmt.Sprintf("gone-%03d", i)] = &registry.Entry{Host: "box", LastSeen: long}
					}
					return nil
				}))
			},
			text: "101 agents, 100 of them stale for over 30d", fix: "sotd leave --stale-for 30d",
		},
		{
			name: "no home", check: "home modes", level: Fail,
			brk:  func(t *testing.T, e *Env) { must(t, os.RemoveAll(e.Home.Dir)) },
			text: "there is no comm home at {home}", fix: "sotd serve",
		},
		{
			name: "unreadable registry", check: "registry", level: Fail,
			brk:  func(t *testing.T, e *Env) { must(t, os.WriteFile(e.Home.Registry(), []byte("{not json"), 0o600)) },
			text: "the registry could not be read", fix: "Move {home}/registry.json aside",
		},
		{
			name: "registry is a folder", check: "registry", level: Fail,
			brk: func(t *testing.T, e *Env) {
				must(t, os.Remove(e.Home.Registry()))
				must(t, os.Mkdir(e.Home.Registry(), 0o700))
			},
			text: "the registry could not be read", fix: "Move {home}/registry.json aside",
		},
		{
			name: "no registry yet", check: "registry", level: Warn,
			brk:  func(t *testing.T, e *Env) { must(t, os.Remove(e.Home.Registry())) },
			text: "there is no {home}/registry.json yet", fix: "sotd join",
		},
		{
			name: "dead lock holder", check: "registry lock", level: Fail,
			brk: func(t *testing.T, e *Env) {
				line := reglock.Holder{Name: "box", Machine: machine.ID(), Boot: machine.Boot(), PIDNS: machine.PIDNamespace(), PID: testutil.ReapedPID(t, envHelper+"=exit"), Start: "1"}.String()
				must(t, os.WriteFile(e.Home.RegistryLock(), []byte(line+"\n"), 0o600))
				if in := reglock.Inspect(e.Home.RegistryLock(), e.Host, time.Now()); in.State != reglock.HeldDead {
					t.Skipf("this box proves no death here: %s", in.Why)
				}
			},
			text: "it has exited", fix: "Run sotd lock-clear.",
		},
		{
			name: "live lock holder", check: "registry lock", level: OK,
			brk: func(t *testing.T, e *Env) {
				pid := os.Getpid()
				line := reglock.Holder{Name: "box", Machine: machine.ID(), Boot: machine.Boot(), PIDNS: machine.PIDNamespace(), PID: pid, Start: machine.Start(pid)}.String()
				must(t, os.WriteFile(e.Home.RegistryLock(), []byte(line+"\n"), 0o600))
			},
			text: "it is running",
		},
		{
			name: "a lock no box can clear", check: "registry lock", level: Fail,
			brk:  func(t *testing.T, e *Env) { must(t, os.WriteFile(e.Home.RegistryLock(), []byte("garbage\n"), 0o600)) },
			text: "its record names no holder (garbage)", fix: "remove {home}/.registry.lock by hand",
		},
		{
			name: "foreign lock-manager record", check: "lock manager", level: Fail,
			brk: func(t *testing.T, e *Env) {
				must(t, os.WriteFile(e.Home.LockManager(), []byte("nfs4 elsewhere:/export\n0123456789abcdef0123456789abcdef\n"), 0o600))
			},
			text: "written by machine 0123456789abcdef0123456789abcdef and names nfs4 elsewhere:/export", fix: "sotd lock-manager reset",
		},
		{
			name: "no lock-manager record", check: "lock manager", level: Warn,
			brk:  func(t *testing.T, e *Env) { must(t, os.Remove(e.Home.LockManager())) },
			text: "no hub has started on this folder", fix: "sotd serve",
		},
		{
			name: "bad hosts.toml", check: "hosts.toml", level: Fail,
			brk: func(t *testing.T, e *Env) {
				must(t, os.WriteFile(e.HostsPath, []byte("hub = \"box\"\nbogus = 1\n"), 0o600))
			},
			text: "hosts.toml:2:", fix: "Correct {hosts} at the line named",
		},
		{
			name: "bad hosts.toml leaves pins unchecked", check: "pins", level: Warn,
			brk: func(t *testing.T, e *Env) {
				must(t, os.WriteFile(e.HostsPath, []byte("hub = \"box\"\nbogus = 1\n"), 0o600))
			},
			text: "its pins are not checked",
		},
		{
			name: "pinned key matches", check: "pins", level: OK,
			brk:  func(t *testing.T, e *Env) { writeHosts(t, e, myKey(t, e)) },
			text: "this box's key matches its pin",
		},
		{
			name: "pinned key differs", check: "pins", level: Fail,
			brk:  func(t *testing.T, e *Env) { myKey(t, e); writeHosts(t, e, otherKey) },
			text: "but hosts.toml pins " + otherKey, fix: "Set key = \"{key}\" under [host.box]",
		},
		{
			name: "no key made yet", check: "pins", level: Fail,
			brk:  func(t *testing.T, e *Env) { writeHosts(t, e, otherKey) },
			text: "this box has no key yet", fix: "Run sotd id",
		},
		{
			name: "box not in hosts.toml", check: "pins", level: Fail,
			brk:  func(t *testing.T, e *Env) { e.Host = "stray"; writeHosts(t, e, otherKey) },
			text: "this box, stray, is not in hosts.toml", fix: "Add [host.stray]",
		},
		{
			name: "no tmux", check: "tools", level: Warn,
			brk: func(t *testing.T, e *Env) {
				e.LookPath = func(string) (string, error) { return "", exec.ErrNotFound }
			},
			text: "tmux is not on PATH", fix: "Install tmux",
		},
		{
			name: "clock never set", check: "clock", level: Fail,
			brk: func(t *testing.T, e *Env) {
				e.Now = func() time.Time { return time.Date(1970, 1, 1, 0, 5, 0, 0, time.UTC) }
			},
			text: "1970-01-01T00:05:00Z", fix: "timedatectl set-ntp true",
		},
		{
			name: "clock behind another box", check: "clock", level: Warn,
			brk: func(t *testing.T, e *Env) {
				d, err := registry.Read(e.Home)
				must(t, err)
				seen, err := time.Parse(time.RFC3339, d.Agents["alice"].LastSeen)
				must(t, err)
				e.Now = func() time.Time { return seen.Add(-5 * time.Minute) }
			},
			text: "@alice on box by 5m0s", fix: "Sync every box's clock",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := healthyHome(t)
			tc.brk(t, &e)
			r := Run(e)
			c := find(t, r, tc.check)
			expand := func(s string) string {
				return strings.NewReplacer("{home}", e.Home.Dir, "{hosts}", e.HostsPath, "{key}", keyOf(e)).Replace(s)
			}
			if c.Level != tc.level || !strings.Contains(c.Detail, expand(tc.text)) {
				t.Fatalf("%s: %s %q; want %s with %q", c.Name, c.Level, c.Detail, tc.level, expand(tc.text))
			}
			if !strings.Contains(c.Fix, expand(tc.fix)) || (tc.fix == "") != (c.Fix == "") {
				t.Fatalf("%s fix %q; want %q", c.Name, c.Fix, expand(tc.fix))
			}
			if r.Healthy {
				t.Fatal("healthy with the daemon check failed")
			}
		})
	}
}

func TestReportText(t *testing.T) {
	e := healthyHome(t)
	must(t, os.WriteFile(e.Home.Registry(), []byte("[]"), 0o600))
	r := Run(e)
	var b strings.Builder
	r.WriteText(&b)
	out := b.String()
	for _, want := range []string{
		"\nFAIL  registry       the registry could not be read",
		"\n                     fix: Move " + e.Home.Registry() + " aside",
		"\nOK    clock          ",
		"\n2 problems: registry, daemon\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	must(t, r.WriteJSON(&b))
	var back Report
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil || back.Healthy || len(back.Checks) != len(r.Checks) || back.Checks[1] != r.Checks[1] {
		t.Fatalf("JSON %s reads back as %+v, %v", b.String(), back, err)
	}
}

const otherKey = "ed25519:ceek3o7y54x2vsltakp54q3jthxce2vuiafzwjzryighdd6sy5wq"

// writeHosts makes box the hub, pinned to key.
func writeHosts(t *testing.T, e *Env, key string) {
	t.Helper()
	text := fmt.Sprintf("hub = \"box\"\n\n[host.box]\ndaemon = true\naddr = \"127.0.0.1:4433\"\nkey = %q\n", key)
	must(t, os.WriteFile(e.HostsPath, []byte(text), 0o600))
}

// myKey makes this box's key, as its first sotd id or serve would.
func myKey(t *testing.T, e *Env) string {
	t.Helper()
	id, err := identity.Load(e.Home, e.Host)
	must(t, err)
	return id.Fingerprint()
}

func keyOf(e Env) string {
	if id, err := identity.Read(e.Home, e.Host); err == nil {
		return id.Fingerprint()
	}
	return ""
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
