package service

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// manager records the commands Install runs: a test machine has no systemd
// user manager to run them against.
type manager struct {
	ran  []string
	fail string // a command that fails
	path bool   // systemctl is on PATH
}

func (m *manager) opts(dry bool, out *strings.Builder) Options {
	return Options{
		DryRun: dry,
		Out:    out,
		Run: func(name string, args ...string) error {
			c := strings.Join(append([]string{name}, args...), " ")
			m.ran = append(m.ran, c)
			if c == m.fail {
				return errors.New("exit status 1")
			}
			return nil
		},
		LookPath: func(string) (string, error) {
			if m.path {
				return "/usr/bin/systemctl", nil
			}
			return "", exec.ErrNotFound
		},
	}
}

func TestInstallLinux(t *testing.T) {
	spec := Spec{Binary: "/usr/local/bin/sotd", Env: []Var{{"SOT_COMM_HOME", "/srv/comm"}}}
	enable := []string{"systemctl --user daemon-reload", "systemctl --user enable --now sotd"}
	for _, tc := range []struct {
		name    string
		m       manager
		dry     bool
		written bool
		ran     []string
		out     []string // lines Out must hold
		err     string
	}{
		{name: "runs systemctl", m: manager{path: true}, written: true, ran: enable,
			out: []string{"wrote {unit}", "running: systemctl --user enable --now sotd"}},
		{name: "no systemctl: says what to run", m: manager{}, written: true,
			out: []string{"wrote {unit}", "systemctl is not on PATH; run these where it is:", "  systemctl --user enable --now sotd"}},
		{name: "dry run changes nothing", m: manager{path: true}, dry: true,
			out: []string{"would write {unit}:", `Environment="SOT_COMM_HOME=/srv/comm"`, "would run:", "  systemctl --user daemon-reload"}},
		{name: "a failed enable is named", m: manager{path: true, fail: enable[1]}, written: true, ran: enable,
			err: "systemctl --user enable --now sotd failed (exit status 1); fix what it said, then run it again by hand"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			unit, err := FilePath()
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "systemd", "user", "sotd.service"); unit != want {
				t.Fatalf("FilePath() = %s, want %s", unit, want)
			}
			var out strings.Builder
			err = Install(spec, tc.m.opts(tc.dry, &out))
			if (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
				t.Fatalf("Install = %v, want %q", err, tc.err)
			}
			if strings.Join(tc.m.ran, "|") != strings.Join(tc.ran, "|") {
				t.Fatalf("ran %q, want %q", tc.m.ran, tc.ran)
			}
			for _, line := range tc.out {
				if line = strings.ReplaceAll(line, "{unit}", unit); !strings.Contains(out.String(), line+"\n") {
					t.Errorf("output lacks %q:\n%s", line, out.String())
				}
			}
			b, err := os.ReadFile(unit)
			if !tc.written {
				if err == nil {
					t.Fatal("a dry run wrote the unit")
				}
				return
			}
			if want := mustRender(t, "linux", spec); string(b) != string(want) {
				t.Fatalf("unit on disk:\n%s\nwant\n%s", b, want)
			}
		})
	}
}

func TestUninstallLinux(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	unit, _ := FilePath()
	var out strings.Builder
	m := &manager{path: true}
	if err := Uninstall(m.opts(false, &out)); err != nil || len(m.ran) != 0 || !strings.Contains(out.String(), "nothing to uninstall") {
		t.Fatalf("Uninstall with nothing installed = %v, ran %q, said %q", err, m.ran, out.String())
	}
	if err := Install(Spec{Binary: "/bin/sotd"}, m.opts(false, &out)); err != nil {
		t.Fatal(err)
	}
	// A unit that is not loaded fails to disable; the uninstall goes on.
	m = &manager{path: true, fail: "systemctl --user disable --now sotd"}
	out.Reset()
	if err := Uninstall(m.opts(false, &out)); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.ran, "|"); got != "systemctl --user disable --now sotd|systemctl --user daemon-reload" {
		t.Fatalf("ran %s", got)
	}
	if _, err := os.Stat(unit); !errors.Is(err, os.ErrNotExist) || !strings.Contains(out.String(), "removed "+unit+"\n") {
		t.Fatalf("unit still there (%v), said %q", err, out.String())
	}
}
