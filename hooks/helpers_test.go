package hooks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/registry/reglock"
)

// newClock is a test's time, moved by hand.
func newClock() *testutil.Clock {
	return testutil.NewClock(time.Date(2026, 6, 15, 19, 32, 13, 0, time.UTC))
}

func stamp(c *testutil.Clock, d time.Duration) string { return registry.Stamp(c.Now().Add(d)) }

// joined is a comm home in which alice has joined, outside any row.
func joined(t *testing.T, c *testutil.Clock) *client.Session {
	t.Helper()
	t.Setenv(home.EnvName, "")
	h, err := home.At(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	s := &client.Session{Home: h, Host: "box", Cwd: t.TempDir(), Stdout: &out, Stderr: &out, Now: c.Now}
	if code := s.Join(client.JoinArgs{Name: "alice"}); code != client.ExitOK {
		t.Fatalf("join: %d %s", code, out.String())
	}
	return s
}

// ownCodex is the ancestry of a hook that a session's own codex runs, so a test
// does not depend on the processes that run it.
func ownCodex() ([]ancestry.Proc, error) {
	return []ancestry.Proc{
		{PID: 300, PPID: 200, Argv: []string{"sotd", "hook"}},
		{PID: 200, PPID: 1, Argv: []string{"codex", "--no-daemon"}},
	}, nil
}

// hook runs one hook with input as its stdin and returns its stdout and stderr.
func hook(t *testing.T, s *client.Session, fn func(Run) int, input string) (out, errs string) {
	t.Helper()
	var o, e bytes.Buffer
	code := fn(Run{In: strings.NewReader(input), Out: &o, Err: &e, Session: s, Ancestry: ownCodex})
	if code != ExitOK {
		t.Fatalf("hook exit %d; stdout %q stderr %q", code, o.String(), e.String())
	}
	return o.String(), e.String()
}

// mail files a line into alice's inbox through the filer, as a sender would.
func mail(t *testing.T, s *client.Session, from, to, msg string) {
	t.Helper()
	f := filer.New(s.Home)
	if _, err := f.Append("alice", []filer.Line{{From: from, To: to, Repo: "r", Msg: msg, TS: "2026-06-15T19:00:00Z"}}); err != nil {
		t.Fatal(err)
	}
}

func entry(t *testing.T, s *client.Session) *registry.Entry {
	t.Helper()
	e, ok, err := registry.Lookup(s.Home, "alice")
	if err != nil || !ok {
		t.Fatalf("alice's row: %v %v", ok, err)
	}
	return e
}

func decode(t *testing.T, out string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("answer %q is not JSON: %v", out, err)
	}
	return m
}

const helperEnv = "HOOKS_TEST_HELPER"

// TestHelperProcess is not a test: it is the body of the child processes the
// multi-process tests start, chosen by $HOOKS_TEST_HELPER.
func TestHelperProcess(t *testing.T) {
	var release func() error
	switch os.Getenv(helperEnv) {
	case "":
		t.Skip("only runs as a helper process")
	case "hold":
		// Hold an inbox lock exclusively, as a writer mid-append does.
		lk := flock.New(os.Getenv("HOOKS_LOCK"))
		if err := lk.Lock(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		release = lk.Unlock
	case "server":
		// Play Codex's shared app-server (this process's argv says so) and run
		// the Stop hook as its child, with stdout passed through.
		child := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
		child.Env = append(os.Environ(), helperEnv+"=stop")
		child.Stdout, child.Stderr = os.Stdout, os.Stderr
		if err := child.Run(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "sotdcommand":
		cmd, err := SotdCommand()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(cmd)
		os.Exit(0)
	case "stop":
		// The Stop hook with no comm home, its ancestry read from the OS.
		os.Exit(Stop(Run{In: strings.NewReader(stopInput), Out: os.Stdout, Err: os.Stderr, NoSession: errors.New("no comm home here")}))
	case "reglock":
		// Hold the registry lock, as a live writer does.
		lk, err := reglock.Take(os.Getenv("HOOKS_LOCK"), reglock.Options{Deadline: reglock.Ruled})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		release = lk.Release
	default:
		os.Exit(2)
	}
	fmt.Println("held")
	bufio.NewReader(os.Stdin).ReadString('\n') // until the test closes stdin
	if err := release(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// holdLock starts a process that holds the lock at path (role "hold", an inbox
// lock; "reglock", the registry lock) until the test ends.
func holdLock(t *testing.T, role, path string) {
	t.Helper()
	if h := testutil.StartHelper(t, helperEnv+"="+role, "HOOKS_LOCK="+path); h.Ready != "held" {
		t.Fatalf("the %s helper said %q", role, h.Ready)
	}
}
