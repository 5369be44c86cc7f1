//go:build linux

package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/sotcomm/sotd/internal/testutil"
)

// A session is a long-lived process that runs sotd commands as its children, as
// a terminal's shell or an agent does: this test binary, under the name given
// (claude makes it an agent), reparented out of the test's process tree as a
// terminal's shell or an agent started from one is, and, for a terminal, the
// leader of a session whose controlling terminal is a real pty. It reads one
// request a line on fd 3 and answers each on fd 4.

// sessionFD is where a terminal session finds its pty's slave.
const sessionTTY = "SOTD_IT_TTY"

type sessionReq struct {
	Dir  string   `json:"dir"`
	Env  []string `json:"env"`
	Args []string `json:"args"`
}

type sessionRes struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Code   int    `json:"code"`
	Err    string `json:"err"`
}

// runSession is the session process's main.
func runSession() error {
	if _, err := unix.Setsid(); err != nil {
		return fmt.Errorf("setsid: %w", err)
	}
	if os.Getenv(sessionTTY) != "" {
		if err := unix.IoctlSetInt(5, unix.TIOCSCTTY, 0); err != nil {
			return fmt.Errorf("take the pty as the controlling terminal: %w", err)
		}
	}
	in := bufio.NewScanner(os.NewFile(3, "requests"))
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.NewFile(4, "answers"))
	if err := out.Encode(sessionRes{Stdout: strconv.Itoa(os.Getpid())}); err != nil {
		return err
	}
	for in.Scan() {
		var req sessionReq
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			return err
		}
		cmd := exec.Command(req.Args[0], req.Args[1:]...)
		cmd.Dir = req.Dir
		cmd.Env = append(os.Environ(), req.Env...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		res := sessionRes{}
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			res.Code = ee.ExitCode()
		case err != nil:
			res.Err = err.Error()
		}
		res.Stdout, res.Stderr = o.String(), e.String()
		if err := out.Encode(res); err != nil {
			return err
		}
	}
	return in.Err()
}

// session is the test's end of one session process.
type session struct {
	t    *testing.T
	name string
	pid  int
	req  *os.File
	res  *bufio.Scanner
}

// startSession starts a session process named name on box b; terminal gives it
// a pty as its controlling terminal.
func (b *box) startSession(t *testing.T, name string, terminal bool) *session {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), name)
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	files := []*os.File{reqR, resW, devnull}
	env := append(b.env(""), helperEnv+"=session")
	if terminal {
		ptm, tty, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ptm.Close() })
		defer tty.Close()
		files[2] = tty
		env = append(env, sessionTTY+"=1")
	}
	// sh starts the session in the background and exits at once, so the session
	// is reparented away from this test, as a terminal's shell is never a child of
	// what started the terminal. Its fd 3, 4 and 5 are the pipes and the pty.
	cmd := exec.Command("sh", "-c", `"$0" 3<&3 4>&4 5<&5 </dev/null >/dev/null &`, link)
	cmd.Env = env
	cmd.ExtraFiles = files
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("start session %s: %v", name, err)
	}
	reqR.Close()
	resW.Close()
	devnull.Close()
	s := &session{t: t, name: name, req: reqW, res: bufio.NewScanner(resR)}
	s.res.Buffer(make([]byte, 1<<20), 1<<20)
	var hello sessionRes
	if !s.res.Scan() || json.Unmarshal(s.res.Bytes(), &hello) != nil {
		t.Fatalf("session %s said nothing: %v", name, s.res.Err())
	}
	if s.pid, err = strconv.Atoi(hello.Stdout); err != nil {
		t.Fatalf("session %s said %q", name, hello.Stdout)
	}
	t.Cleanup(s.end)
	return s
}

// run runs sotd in dir as a child of the session, with env added to its own.
func (s *session) run(dir string, env []string, args ...string) result {
	s.t.Helper()
	b, err := json.Marshal(sessionReq{Dir: dir, Env: env, Args: append([]string{sotdBin}, args...)})
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.req.Write(append(b, '\n')); err != nil {
		s.t.Fatalf("session %s: %v", s.name, err)
	}
	var res sessionRes
	if !s.res.Scan() || json.Unmarshal(s.res.Bytes(), &res) != nil {
		s.t.Fatalf("session %s did not answer sotd %v: %v", s.name, args, s.res.Err())
	}
	if res.Err != "" {
		s.t.Fatalf("session %s could not run sotd %v: %s", s.name, args, res.Err)
	}
	return result{stdout: res.Stdout, stderr: res.Stderr, code: res.Code}
}

// must runs a verb that must exit 0.
func (s *session) must(dir string, args ...string) string {
	s.t.Helper()
	r := s.run(dir, nil, args...)
	if r.code != 0 {
		s.t.Fatalf("sotd %v in session %s: exit %d\nstdout: %s\nstderr: %s", args, s.name, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// end ends the session process and waits until it is gone.
func (s *session) end() {
	s.req.Close()
	testutil.Eventually(s.t, 10*time.Second, fmt.Sprintf("session %s (pid %d) ends", s.name, s.pid), func() bool {
		return syscall.Kill(s.pid, 0) != nil || zombie(s.pid)
	})
}

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && strings.HasPrefix(string(b[i+1:]), " Z")
}
