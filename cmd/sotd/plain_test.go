//go:build !windows

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// plain is the world of a plain session that a real-agent test runs in dir: a
// comm home, a project folder, a user home, and this test binary as bin/sotd
// (TestMain runs it as sotd). @alice has joined from the test; the session
// acts as her by $SOT_COMM_NAME.
type plain struct {
	dir, proj, userHome, sotd string
	h                         home.Home
	s                         *client.Session
	out                       *bytes.Buffer // the session's output
}

func newPlain(t *testing.T, dir string) *plain {
	t.Helper()
	h, err := home.At(filepath.Join(dir, "comm"))
	if err != nil {
		t.Fatal(err)
	}
	p := &plain{dir: dir, proj: filepath.Join(dir, "proj"), userHome: filepath.Join(dir, "home"),
		sotd: filepath.Join(dir, "bin", "sotd"), h: h, out: &bytes.Buffer{}}
	for _, d := range []string{p.proj, p.userHome, filepath.Dir(p.sotd)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(sotdBin, p.sotd); err != nil {
		t.Fatal(err)
	}
	p.s = &client.Session{Home: h, Host: "box", Cwd: p.proj, Stdout: p.out, Stderr: p.out, Now: time.Now}
	if code := p.s.Join(client.JoinArgs{Name: "alice"}); code != client.ExitOK {
		t.Fatalf("join: %d %s", code, p.out.String())
	}
	return p
}

// file files msgs from @bob into alice's inbox, as one batch, and says when.
func (p *plain) file(t *testing.T, msgs ...string) time.Time {
	t.Helper()
	var lines []filer.Line
	for _, m := range msgs {
		lines = append(lines, filer.Line{From: "bob", To: "alice", Repo: "r", Msg: m, TS: registry.Stamp(time.Now())})
	}
	if _, err := filer.New(p.h).Append("alice", lines); err != nil {
		t.Fatal(err)
	}
	return time.Now()
}

// still waits out settle, in which the count of notices that reached the
// model must stay want.
func still(t *testing.T, settle time.Duration, notices func() int, want int, why string) {
	t.Helper()
	for end := time.Now().Add(settle); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if n := notices(); n != want {
			t.Fatalf("%s: %d notices reached the model, want %d", why, n, want)
		}
	}
}
