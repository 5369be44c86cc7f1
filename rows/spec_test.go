package rows

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

func TestSpecNormalize(t *testing.T) {
	ok := Spec{ID: "ws-abc", Argv: []string{"claude"}}
	for _, tc := range []struct {
		name string
		edit func(*Spec)
		bad  bool
	}{
		{"minimal", func(*Spec) {}, false},
		{"claude with a handle", func(s *Spec) { s.Agent, s.Handle = Claude, "Repo-box" }, false},
		{"codex", func(s *Spec) { s.Agent = Codex }, false},
		{"unknown agent", func(s *Spec) { s.Agent = "gemini" }, true},
		{"handle with a slash", func(s *Spec) { s.Handle = "../x" }, true},
		{"no command", func(s *Spec) { s.Argv = nil }, true},
		{"empty program", func(s *Spec) { s.Argv = []string{""} }, true},
		{"id with a dot", func(s *Spec) { s.ID = "ws.a" }, true},
		{"id with a colon", func(s *Spec) { s.ID = "ws:a" }, true},
		{"id too long", func(s *Spec) { s.ID = "ws-" + string(make([]byte, 62)) }, true},
		{"env without =", func(s *Spec) { s.Env = []string{"FOO"} }, true},
		{"env with empty key", func(s *Spec) { s.Env = []string{"=x"} }, true},
		{"env fine", func(s *Spec) { s.Env = []string{"FOO=a=b", "EMPTY=", "_x9=;#{a} $(b)\n"} }, false},
		{"env key starts with a digit", func(s *Spec) { s.Env = []string{"9X=1"} }, true},
		{"env key with a dash", func(s *Spec) { s.Env = []string{"A-B=1"} }, true},
		{"env key with a space", func(s *Spec) { s.Env = []string{"A B=1"} }, true},
		{"env key with a NUL", func(s *Spec) { s.Env = []string{"A\x00B=1"} }, true},
		{"env value with a NUL", func(s *Spec) { s.Env = []string{"A=x\x00y"} }, true},
		{"env names the row", func(s *Spec) { s.Env = []string{"SOT_WORKSPACE_ID=ws-other"} }, true},
		{"env names the handle", func(s *Spec) { s.Env = []string{"SOT_COMM_NAME=x"} }, true},
		{"size of its own", func(s *Spec) { s.Cols, s.Rows = 100, 30 }, false},
		{"smallest size", func(s *Spec) { s.Cols, s.Rows = MinCols, MinRows }, false},
		{"largest size", func(s *Spec) { s.Cols, s.Rows = MaxSide, MaxSide }, false},
		{"too narrow", func(s *Spec) { s.Cols = MinCols - 1 }, true},
		{"too short", func(s *Spec) { s.Rows = MinRows - 1 }, true},
		{"too wide", func(s *Spec) { s.Cols = MaxSide + 1 }, true},
		{"negative height", func(s *Spec) { s.Rows = -1 }, true},
		{"folder that exists", func(s *Spec) { s.Cwd = os.TempDir() }, false},
		{"folder missing", func(s *Spec) { s.Cwd = "/no/such/folder" }, true},
		{"folder is a file", func(s *Spec) { s.Cwd = os.Args[0] }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ok
			s.Argv = slices.Clone(ok.Argv)
			tc.edit(&s)
			_, err := s.normalize()
			if (err != nil) != tc.bad {
				t.Fatalf("normalize = %v, want bad=%v", err, tc.bad)
			}
			if err != nil && (!errors.Is(err, ErrBadSpec) || Code(err) != "bad_spec") {
				t.Fatalf("error %v does not wrap ErrBadSpec", err)
			}
		})
	}
}

func TestSpecDefaults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "MyRepo")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Dir(dir))
	s, err := Spec{Cwd: "MyRepo", Argv: []string{"x"}}.normalize()
	if err != nil {
		t.Fatal(err)
	}
	if s.Cwd != dir {
		t.Errorf("folder %q, want it made absolute: %q", s.Cwd, dir)
	}
	if !regexp.MustCompile(`^ws-[a-z2-7]{10}$`).MatchString(s.ID) {
		t.Errorf("made id %q, want ws- and ten [a-z2-7]", s.ID)
	}
	if s.Agent != Other || s.Label != "MyRepo" {
		t.Errorf("defaults: agent %q label %q, want other and the folder's name", s.Agent, s.Label)
	}
	if a, b := NewID(), NewID(); a == b {
		t.Errorf("two ids alike: %s", a)
	}
}

// A row started without an agent kind is the agent its command names, so a
// claude spawned without --agent is still woken; an explicit kind wins.
func TestSpecAgentFromCommand(t *testing.T) {
	for _, tc := range []struct {
		agent Agent
		argv  []string
		want  Agent
	}{
		{"", []string{"claude", "--resume"}, Claude},
		{"", []string{"/usr/bin/node", "/usr/lib/node_modules/@openai/codex/bin/codex.js"}, Codex},
		{"", []string{"sh", "-c", "claude"}, Other},
		{Other, []string{"claude"}, Other},
		{Claude, []string{"./my-wrapper"}, Claude},
	} {
		s, err := Spec{Agent: tc.agent, Argv: tc.argv}.normalize()
		if err != nil {
			t.Fatal(err)
		}
		if s.Agent != tc.want {
			t.Errorf("agent %q for %q: got %q, want %q", tc.agent, tc.argv, s.Agent, tc.want)
		}
	}
}

// A Codex row runs its codex with --no-daemon, so the hooks are the row's own
// codex's children and not a shared app-server's, and with -c
// allow_login_shell=false, so its shell keeps the row's PATH; each once only,
// placed before any subcommand, and a command line that is not codex's own is
// left alone.
func TestSpecCodexArgs(t *testing.T) {
	const js = "/usr/lib/node_modules/@openai/codex/bin/codex.js"
	const c, nl = "-c", NoLoginShell
	for _, tc := range []struct {
		name  string
		agent Agent
		argv  []string
		want  []string
	}{
		{"interactive", "", []string{"codex"}, []string{"codex", "--no-daemon", c, nl}},
		{"with a prompt", "", []string{"/usr/bin/codex", "-m", "o3", "fix it"}, []string{"/usr/bin/codex", "--no-daemon", c, nl, "-m", "o3", "fix it"}},
		{"resume", "", []string{"codex", "resume", "--last"}, []string{"codex", "--no-daemon", c, nl, "resume", "--last"}},
		{"fork", Codex, []string{"codex", "fork", "0199"}, []string{"codex", "--no-daemon", c, nl, "fork", "0199"}},
		{"node host", "", []string{"node", "--no-warnings", js, "resume"}, []string{"node", "--no-warnings", js, "--no-daemon", c, nl, "resume"}},
		{"already there", "", []string{"codex", "--no-daemon", c, nl}, []string{"codex", "--no-daemon", c, nl}},
		{"already on resume", "", []string{"codex", "resume", "--no-daemon", "--last"}, []string{"codex", c, nl, "resume", "--no-daemon", "--last"}},
		{"a person's own login shell setting", "", []string{"codex", "-c", "allow_login_shell=true"}, []string{"codex", "--no-daemon", "-c", "allow_login_shell=true"}},
		{"only as a prompt", "", []string{"codex", "--", "--no-daemon"}, []string{"codex", "--no-daemon", c, nl, "--", "--no-daemon"}},
		{"a shell line", Codex, []string{"sh", "-c", "codex"}, []string{"sh", "-c", "codex"}},
		{"a wrapper", Codex, []string{"./my-codex"}, []string{"./my-codex"}},
		{"not a codex row", Other, []string{"codex"}, []string{"codex"}},
		{"claude", "", []string{"claude"}, []string{"claude"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			argv := slices.Clone(tc.argv)
			s, err := Spec{Agent: tc.agent, Argv: argv}.normalize()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.Argv, tc.want) {
				t.Errorf("argv %q: got %q, want %q", tc.argv, s.Argv, tc.want)
			}
			if !slices.Equal(argv, tc.argv) {
				t.Errorf("the caller's argv was changed to %q", argv)
			}
		})
	}
}

func TestRowEnvCarriesIdentity(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec Spec
		want []string
	}{
		{"no handle", Spec{ID: "ws-a", Env: []string{"A=1"}}, []string{"A=1", "SOT_WORKSPACE_ID=ws-a"}},
		{"handle", Spec{ID: "ws-a", Handle: "H-box"}, []string{"SOT_WORKSPACE_ID=ws-a", "SOT_COMM_NAME=H-box"}},
		{"spec cannot forge identity", Spec{ID: "ws-a", Env: []string{"SOT_WORKSPACE_ID=ws-other", "SOT_COMM_NAME=x", "B=2"}},
			[]string{"B=2", "SOT_WORKSPACE_ID=ws-a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.spec.rowEnv(); !slices.Equal(got, tc.want) {
				t.Errorf("rowEnv = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{ErrNoRow, "no_row"},
		{ErrRowExists, "row_exists"},
		{ErrNotRunning, "row_not_running"},
		{ErrBadSpec, "bad_spec"},
		{ErrUnsupported, "unsupported"},
		{errors.New("tmux: boom"), "row_failed"},
	} {
		if got := Code(tc.err); got != tc.want {
			t.Errorf("Code(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestPhases(t *testing.T) {
	for _, tc := range []struct {
		p              Phase
		running, ended bool
	}{
		{Starting, true, false},
		{Ready, true, false},
		{Ending, false, false},
		{Stopped, false, false},
		{Terminal, false, true},
	} {
		if tc.p.Running() != tc.running || tc.p.Ended() != tc.ended {
			t.Errorf("%s: Running=%v Ended=%v, want %v %v", tc.p, tc.p.Running(), tc.p.Ended(), tc.running, tc.ended)
		}
	}
}
