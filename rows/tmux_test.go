//go:build !windows

package rows_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/rows/rowstest"
	"github.com/sotcomm/sotd/screen"
)

func needTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("tmux is not installed, and CI must test the tmux backend: %v", err)
		}
		t.Skipf("tmux is not installed: %v", err)
	}
}

// A restarted daemon is a second backend on the same home: it finds the row
// the first started, with its spec, and can read, type into and stop it.
func TestTmuxRowSurvivesDaemonRestart(t *testing.T) {
	needTmux(t)
	h := tmuxHome(t)
	first := newTmuxAt(t, h, rows.Options{})
	spec, log := agentSpec(t, rowstest.EnvDraft+"=kept")
	started, err := first.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	rowstest.WaitScreen(t, first, started.Spec.ID, wait, "the draft", atPrompt("kept"))

	sock := first.Socket()
	if want := filepath.Join(h.Dir, "run", "box", "tmux", "rows.sock"); sock != want {
		t.Errorf("socket %s, want %s", sock, want)
	}
	fi, err := os.Stat(filepath.Dir(sock))
	if err != nil || fi.Mode().Perm() != home.DirMode {
		t.Errorf("the socket's folder: %v, %v; want mode %v", fi, err, home.DirMode)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	second := newTmuxAt(t, h, rows.Options{})
	found, err := second.Discover()
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 {
		t.Fatalf("Discover found %d rows, want 1: %+v", len(found), found)
	}
	got := found[0]
	if !reflect.DeepEqual(got.Spec, started.Spec) {
		t.Errorf("discovered spec %+v, want %+v", got.Spec, started.Spec)
	}
	if got.Phase != rows.Ready || got.Pid != started.Pid {
		t.Errorf("discovered %+v, want Ready with pid %d", got, started.Pid)
	}
	rowstest.WaitScreen(t, second, got.Spec.ID, wait, "the draft", atPrompt("kept"))
	if err := second.Input(got.Spec.ID, []byte("!")); err != nil {
		t.Fatal(err)
	}
	rowstest.WaitFile(t, log, "!", wait)
	if err := second.Stop(got.Spec.ID); err != nil {
		t.Fatal(err)
	}
	if info, err := first.Info(got.Spec.ID); err != nil || info.Phase != rows.Stopped {
		t.Errorf("the first backend sees %+v, %v; want Stopped", info, err)
	}
}

// A session a person made on the private socket is not a row.
func TestTmuxIgnoresForeignSessions(t *testing.T) {
	needTmux(t)
	b := newTmuxAt(t, tmuxHome(t), rows.Options{})
	spec, _ := agentSpec(t)
	if _, err := b.Start(spec); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tmux", "-S", b.Socket(), "new-session", "-d", "-s", "mine", "sleep", "300").CombinedOutput(); err != nil {
		t.Fatalf("make a foreign session: %v: %s", err, out)
	}
	list, err := b.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Spec.Label != "Repo" {
		t.Errorf("List = %+v, want only the daemon's row", list)
	}
	if _, err := b.Info("mine"); rows.Code(err) != "no_row" {
		t.Errorf("Info of a foreign session = %v, want no_row", err)
	}
	if _, err := b.Screen("mine"); rows.Code(err) != "no_row" {
		t.Errorf("Screen of a foreign session = %v, want no_row", err)
	}
	if err := b.Input("mine", []byte("x")); rows.Code(err) != "no_row" {
		t.Errorf("Input into a foreign session = %v, want no_row", err)
	}
}

func TestChoosePrefersTmux(t *testing.T) {
	needTmux(t)
	b := rows.Choose(tmuxHome(t), "box", rows.Options{})
	if b.Name() != "tmux" {
		t.Errorf("Choose on a box with tmux = %s", b.Name())
	}
}

// A spawn's argv, environment and folder reach the agent as given, however
// tmux would read them as commands: a ';' alone or ending a word separates
// tmux commands, and the folder (new-session -c) is a tmux format, where
// "#{…}" expands and "#(…)" runs. Nothing else is started.
func TestTmuxSpawnWordsAreNotTmuxCommands(t *testing.T) {
	needTmux(t)
	for _, tc := range []struct {
		name, folder, env string
		args              []string
	}{
		{"a separator, then a command", "repo", "v", []string{"a ;", "new-session", "-d", "-s", "evil"}},
		{"separators", "repo", "v", []string{";", "x;", `y\;`, "new-session", "-d", "-s", "evil", "#{session_name};"}},
		{"folder ending in a separator", "repo;", "v", []string{"ok"}},
		{"folder with formats", "#(true)#{session_name}x", "v", []string{"ok"}},
		{"environment", "repo", "v#{session_name};", []string{"ok"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newTmuxAt(t, tmuxHome(t), rows.Options{})
			dir := filepath.Join(t.TempDir(), tc.folder)
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			real, err := filepath.EvalSymlinks(dir) // pwd -P's answer where TMPDIR is a link (macOS)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "seen")
			// The agent writes its folder, its $K and its arguments, each ended
			// by a NUL, then stays, so the row is still there to be counted.
			script := `{ pwd -P; printf '\0%s\0' "$K"; printf '%s\0' "$@"; } >"$OUT.tmp" && mv "$OUT.tmp" "$OUT"; exec sleep 300`
			started, err := b.Start(rows.Spec{
				Label: "Repo",
				Agent: rows.Other,
				Cwd:   dir,
				Argv:  append([]string{"/bin/sh", "-c", script, "sh"}, tc.args...),
				Env:   []string{"OUT=" + out, "K=" + tc.env},
			})
			if err != nil {
				t.Fatal(err)
			}

			var seen []byte
			testutil.Eventually(t, wait, "the agent to write what it was given", func() bool {
				seen, err = os.ReadFile(out)
				return err == nil
			})
			fields := strings.Split(strings.TrimSuffix(string(seen), "\x00"), "\x00")
			want := append([]string{real + "\n", tc.env}, tc.args...)
			if !reflect.DeepEqual(fields, want) {
				t.Errorf("the agent was given (folder, $K, argv...)\n%q\nwant\n%q", fields, want)
			}

			sessions, err := exec.Command("tmux", "-S", b.Socket(), "list-sessions", "-F", "#{session_name}").CombinedOutput()
			if err != nil {
				t.Fatalf("list the sessions: %v: %s", err, sessions)
			}
			if got := strings.Fields(string(sessions)); !reflect.DeepEqual(got, []string{started.Spec.ID}) {
				t.Errorf("sessions on the rows' server: %q, want only the row %s", got, started.Spec.ID)
			}
			info, err := b.Info(started.Spec.ID)
			if err != nil || !reflect.DeepEqual(info.Spec, started.Spec) {
				t.Errorf("Info = %+v, %v; want the spec as started, %+v", info.Spec, err, started.Spec)
			}
		})
	}
}

// TestTmuxRowEnvironmentStaysOffCommandLines: a secret given in a row's
// environment reaches its program, but no process's command line on the box
// (the tmux server's is the client's that started it, kept for as long as
// the server runs, and /proc shows it to every account), nor the spec tmux
// keeps with the row, nor a file left in the home holds it.
func TestTmuxRowEnvironmentStaysOffCommandLines(t *testing.T) {
	needTmux(t)
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc to read command lines from")
	}
	h := tmuxHome(t)
	b := newTmuxAt(t, h, rows.Options{})
	const secret = "sk-test-'quoted' $(not run) ;#{x}"
	out := filepath.Join(t.TempDir(), "seen")
	started, err := b.Start(rows.Spec{Label: "Repo", Agent: rows.Other,
		Argv: []string{"/bin/sh", "-c", `printf '%s' "$API_KEY" >"$0.tmp" && mv "$0.tmp" "$0"; exec sleep 300`, out},
		Env:  []string{"API_KEY=" + secret}})
	if err != nil {
		t.Fatal(err)
	}
	rowstest.WaitFile(t, out, secret, wait)
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "sk-test-") {
			t.Errorf("%s holds the row's secret: %q", p, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	spec, err := exec.Command("tmux", "-S", b.Socket(), "show-options", "-t", started.Spec.ID, "@sot_spec").CombinedOutput()
	if err != nil || !strings.Contains(string(spec), started.Spec.ID) || strings.Contains(string(spec), "sk-test-") {
		t.Errorf("the row's stored spec %q (%v): want it without the secret", spec, err)
	}
	filepath.WalkDir(h.Dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "sk-test-") {
				t.Errorf("%s holds the row's secret after the row started", p)
			}
		}
		return nil
	})
}

// A tmux row's screen says since when its rows and the cursor have held
// still, by the output its control client saw (tmux_watch.go): a look at an
// idle row knows it has been still since before the look, a row drawn again
// as it was keeps its time, and a changed one is stamped after the output
// that changed it. A backend that takes the row on after a restart, and a row
// started again on a new server, know nothing before their watch attached.
func TestTmuxScreenSaysSinceWhenStill(t *testing.T) {
	needTmux(t)
	h := tmuxHome(t)
	b := newTmuxAt(t, h, rows.Options{})
	id, phase := startChanging(t, b, "")
	phase("1")
	idle := time.Now()
	look, err := b.Screen(id)
	if err != nil {
		t.Fatal(err)
	}
	if last := latest(look); last.After(idle) {
		t.Errorf("a look at the idle row says it changed at %v, after %v: nothing was written since", last, idle)
	}
	checkLaterPhases(t, b, id, phase, look, idle)

	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	restarted := time.Now()
	second := newTmuxAt(t, h, rows.Options{})
	if _, err := second.Discover(); err != nil {
		t.Fatal(err)
	}
	checkKnownSince(t, second, id, restarted, "after a restart")

	if out, err := exec.Command("tmux", "-S", second.Socket(), "kill-server").CombinedOutput(); err != nil {
		t.Fatalf("kill the tmux server: %v: %s", err, out)
	}
	killed := time.Now()
	// The server goes a moment after kill-server answers; a client that
	// reaches it meanwhile finds no server, and a Start then fails.
	testutil.Eventually(t, wait, "the tmux server gone", func() bool {
		out, err := exec.Command("tmux", "-S", second.Socket(), "list-sessions").CombinedOutput()
		return err != nil && isNoServer(string(out))
	})
	_, phase = startChanging(t, second, id)
	phase("1")
	checkKnownSince(t, second, id, killed, "on a new server")
}

// checkKnownSince checks that row id's screen has change times, none before
// from: the row's watch knows nothing before it attached.
func checkKnownSince(t *testing.T, b rows.Backend, id string, from time.Time, when string) {
	t.Helper()
	s, err := b.Screen(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Changed) != s.Rows {
		t.Fatalf("%s: %d change times for %d rows", when, len(s.Changed), s.Rows)
	}
	for y, at := range append(s.Changed, s.CursorMoved) {
		if at.Before(from) {
			t.Errorf("%s: row %d (%d: the cursor) changed at %v, before %v", when, y, s.Rows, at, from)
		}
	}
}

// latest is when the screen last changed anywhere.
func latest(s *screen.Screen) time.Time {
	last := s.CursorMoved
	for _, at := range s.Changed {
		if at.After(last) {
			last = at
		}
	}
	return last
}
