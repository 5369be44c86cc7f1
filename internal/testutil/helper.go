package testutil

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Helper is this test binary run again as a helper process: its
// TestHelperProcess does what env asks and says it is in position with one
// first line on stdout.
type Helper struct {
	Cmd    *exec.Cmd
	Stdin  io.WriteCloser
	Stdout *bufio.Reader // what it writes after its first line
	Ready  string        // that first line, trimmed
}

// StartHelper runs TestHelperProcess of this test binary in a child process
// with env added, and waits for its first stdout line. The child is killed at
// the test's end if it is still running.
func StartHelper(t testing.TB, env ...string) *Helper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	out := bufio.NewReader(stdout)
	ready, err := out.ReadString('\n')
	if err != nil {
		t.Fatalf("helper process (%s) said nothing: %v", strings.Join(env, " "), err)
	}
	return &Helper{Cmd: cmd, Stdin: stdin, Stdout: out, Ready: strings.TrimSpace(ready)}
}

// ReapedPID runs this test binary with env (which should make its TestMain
// exit at once), waits for it, and returns its pid: a process that is surely
// gone, for a proof-of-death or a stale-record test.
func ReapedPID(t testing.TB, env ...string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Run(); err != nil {
		t.Fatalf("the helper process that should exit at once: %v", err)
	}
	return cmd.Process.Pid
}
