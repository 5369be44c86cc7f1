package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/sotcomm/sotd/internal/testutil"
)

// sotdBin is the sotd binary TestMain built.
var sotdBin string

func TestMain(m *testing.M) {
	// The transcripts, and the tests that start sotd or a shell that runs it,
	// find it on PATH.
	bin, dir, err := testutil.BuildSotd(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sotdBin = bin
	os.Setenv("PATH", dir+string(filepath.ListSeparator)+os.Getenv("PATH"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestScripts runs the CLI transcripts in testdata/script: each is a txtar of
// commands with their exact output and exit codes. Those that run a real
// agent's own CLI are in testdata/agents (TestAgentScripts, tag agents).
func TestScripts(t *testing.T) { runScripts(t, "testdata/script") }

// runScripts runs the transcripts in dir.
func runScripts(t *testing.T, dir string) {
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(e *testscript.Env) error {
			e.Setenv("SOT_COMM_HOME", filepath.Join(e.WorkDir, "comm"))
			e.Setenv("SOT_SELF_HOST", "box")
			// The repository's root, a marketplace of sotd's Claude Code plugin.
			root, err := filepath.Abs(filepath.Join("..", ".."))
			if err != nil {
				return err
			}
			e.Setenv("SOTD_REPO", root)
			// Rows outlive their daemon by design (tmux keeps them); a script
			// that stops part way must not leave its rows running after it.
			sock := filepath.Join(e.WorkDir, "comm", "run", "box", "tmux", "rows.sock")
			e.Defer(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitfile": waitFile,
			"setvar":   setVar,
			"exitcode": exitCode,
			"holdlock": holdLock,
		},
	})
}

// waitFile waits up to 10 s for a file to appear, and for a socket (a
// daemon's) to take a connection (testutil.Answers). It has no negation: a file that must not appear would hold a script for the
// whole bound to prove it.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile PATH")
	}
	p := ts.MkAbs(args[0])
	if !testutil.Within(10*time.Second, func() bool {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode()&fs.ModeSocket == 0 {
			return err == nil
		}
		return testutil.Answers(p)
	}) {
		ts.Fatalf("%s did not appear, or take a connection, within 10s", p)
	}
}

// setVar sets an environment variable to the last command's stdout, trimmed (a
// row id that sotd spawn printed), or to the first group of REGEXP's first
// match in it (a message id that poll printed).
func setVar(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: setvar NAME [REGEXP]")
	}
	out := ts.ReadFile("stdout")
	if len(args) == 1 {
		ts.Setenv(args[0], strings.TrimSpace(out))
		return
	}
	m := regexp.MustCompile(args[1]).FindStringSubmatch(out)
	if len(m) < 2 {
		ts.Fatalf("setvar: %q matches no group of stdout", args[1])
	}
	ts.Setenv(args[0], m[1])
}

// exitCode runs a command as exec does and checks its exit code: the codes
// (0 done, 1 FAILED, 2 usage, 3 join conflict, 75 busy) are a contract, and
// `! exec` would take any failure for the one meant.
func exitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = exit.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// holdLock takes an inbox's lock file as a stuck writer would, for the rest of
// the script: flock is per open file, so the sotd processes the script runs
// find it held.
func holdLock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: holdlock PATH")
	}
	fl := flock.New(ts.MkAbs(args[0]))
	ok, err := fl.TryLock()
	if err != nil || !ok {
		ts.Fatalf("holdlock %s: held %v, %v", args[0], ok, err)
	}
	ts.Defer(func() { fl.Unlock() })
}
