// Package integration builds sotd once and runs real daemons and clients against
// their own comm homes: real processes, real sockets, real flock and fsync.
package integration

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
)

// sotdBin is the binary every test runs, built once by TestMain.
var sotdBin string

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(runHelper())
	}
	bin, dir, err := testutil.BuildSotd("../cmd/sotd")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sotdBin = bin
	flag.Parse()
	testutil.AtLeastParallel(waitingTests)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// waitingTests is how many parallel tests run at once unless -parallel says.
// The parallel tests here spend their time waiting on real time (a link's
// death, a stamp, a restart, a browser), not computing, so go test's default
// of one per CPU leaves a 2-core machine idle through most of them.
const waitingTests = 4

// parallelUnlessSoak runs t beside the other parallel tests, except at the
// soak's size: there it is the load the tests beside it would be timed
// against (sixteen processes sending 500 lines each, 2,000 lines across hub
// kills), and it runs alone as it always has.
func parallelUnlessSoak(t *testing.T) {
	if !testutil.Soak {
		t.Parallel()
	}
}

// box is one comm home as one box sees it.
type box struct {
	t     testing.TB
	home  string
	host  string
	hosts string   // its hosts.toml ($SOT_HOSTS); absent unless a test writes it
	extra []string // more environment for every process of the box
	sock  string   // the daemon's socket ($SOT_SOCKET) when not in the home
	// defaults: the box runs on sotd's defaults, as a newcomer's does: no
	// SOT_ variable, so home is $HOME/.sot-comm and host the host's name.
	defaults bool
}

func newBox(t testing.TB, host string) *box {
	t.Helper()
	dir := t.TempDir()
	b := &box{t: t, home: filepath.Join(dir, "comm"), host: host, hosts: filepath.Join(dir, "hosts.toml")}
	// A tmux row outlives its daemon by design (a restarted daemon finds it
	// again), so the test ends the box's tmux server itself.
	t.Cleanup(func() {
		exec.Command("tmux", "-S", filepath.Join(b.home, "run", host, "tmux", "rows.sock"), "kill-server").Run()
	})
	return b
}

// env is the environment of a process on this box acting as handle (""
// for none).
func (b *box) env(handle string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "SOT_") || strings.HasPrefix(kv, "COMM_") {
			continue
		}
		env = append(env, kv)
	}
	if !b.defaults {
		env = append(env, "SOT_COMM_HOME="+b.home, "SOT_SELF_HOST="+b.host, "SOT_HOSTS="+b.hosts)
	}
	env = append(env, b.extra...)
	if b.sock != "" {
		env = append(env, home.EnvSocket+"="+b.sock)
	}
	if handle != "" {
		env = append(env, "SOT_COMM_NAME="+handle)
	}
	return env
}

func (b *box) socket() string {
	if b.sock != "" {
		return b.sock
	}
	return filepath.Join(b.home, "run", b.host, "sotd.sock")
}

// result is one finished client run.
type result struct {
	stdout, stderr string
	code           int
}

// run runs `sotd args…` as handle and returns what it printed and its exit code.
func (b *box) run(handle string, stdin string, args ...string) result {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sotdBin, args...)
	cmd.Env = b.env(handle)
	cmd.Dir = b.t.TempDir()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		b.t.Fatalf("sotd %v: %v", args, err)
	}
	return r
}

// must runs a verb that must exit 0.
func (b *box) must(handle string, args ...string) string {
	b.t.Helper()
	r := b.run(handle, "", args...)
	if r.code != 0 {
		b.t.Fatalf("sotd %v as @%s: exit %d\nstdout: %s\nstderr: %s", args, handle, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// daemon is a running `sotd serve`.
type daemon struct {
	cmd     *exec.Cmd
	logs    *testutil.SyncBuffer
	done    chan error
	stopped sync.Once
}

// serve starts this box's daemon and waits until its socket answers.
func (b *box) serve() *daemon {
	b.t.Helper()
	cmd := exec.Command(sotdBin, "serve")
	cmd.Env = b.env("")
	logs := &testutil.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		b.t.Fatal(err)
	}
	d := &daemon{cmd: cmd, logs: logs, done: make(chan error, 1)}
	go func() { d.done <- cmd.Wait() }()
	b.t.Cleanup(func() { d.stop(b.t) })
	var exited bool
	var err error
	up := testutil.Within(10*time.Second, func() bool {
		select {
		case err = <-d.done:
			d.done <- err
			exited = true
			return true
		default:
		}
		return testutil.Answers(b.socket())
	})
	switch {
	case exited:
		b.t.Fatalf("sotd serve exited at start: %v\n%s", err, logs.String())
	case !up:
		b.t.Fatalf("sotd serve did not answer at %s in 10s\n%s", b.socket(), logs.String())
	}
	return d
}

// stop sends SIGTERM and requires a clean exit within 10 s.
func (d *daemon) stop(t testing.TB) {
	d.stopped.Do(func() { d.term(t) })
}

func (d *daemon) term(t testing.TB) {
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-d.done:
		d.done <- err
		if err != nil {
			t.Errorf("sotd serve after SIGTERM: %v\n%s", err, d.logs.String())
		}
	case <-time.After(10 * time.Second):
		d.cmd.Process.Kill()
		t.Errorf("sotd serve did not stop within 10s of SIGTERM\n%s", d.logs.String())
	}
}
