package client

import (
	"bufio"
	"bytes"
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// shortSocket is a Unix socket path under the 104-byte limit macOS sets, which
// t.TempDir's long names can pass.
func shortSocket(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "d.sock")
}

// TestBridgeCopiesBothWays: every line of stdin reaches the socket, every
// answer comes back, and the bridge waits for the answers after stdin ends.
func TestBridgeCopiesBothWays(t *testing.T) {
	sock := shortSocket(t)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		// Answer each line, then only close after the client's end of input:
		// the bridge must keep reading past its own stdin's end.
		sc := bufio.NewScanner(c)
		for sc.Scan() {
			c.Write([]byte("got " + sc.Text() + "\n"))
		}
		c.Write([]byte("bye\n"))
	}()
	var out bytes.Buffer
	if err := Bridge(sock, strings.NewReader("one\ntwo\n"), &out); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "got one\ngot two\nbye\n"; got != want {
		t.Fatalf("bridge copied %q, want %q", got, want)
	}
}

// TestBridgeDaemonClosesFirst: a daemon that hangs up while stdin still has
// input ends the bridge cleanly, with what it said.
func TestBridgeDaemonClosesFirst(t *testing.T) {
	sock := shortSocket(t)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Write([]byte("refused\n"))
		c.Close()
	}()
	stdin, never := net.Pipe() // a terminal that never ends
	defer never.Close()
	var out bytes.Buffer
	if err := Bridge(sock, stdin, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "refused\n" {
		t.Fatalf("bridge copied %q", out.String())
	}
}

func TestBridgeNobodyAnswers(t *testing.T) {
	sock := shortSocket(t)
	err := Bridge(sock, strings.NewReader("x\n"), &bytes.Buffer{})
	if err == nil || !strings.HasPrefix(err.Error(), "the daemon did not answer at "+sock+" (") || !strings.HasSuffix(err.Error(), "); start it with sotd serve") {
		t.Fatalf("Bridge to nothing = %v", err)
	}
}

func TestEndpoint(t *testing.T) {
	for _, tc := range []struct{ in, want, bad string }{
		{in: "/run/d.sock", want: "/run/d.sock"},
		{in: "comm/run/box/sotd.sock", want: "comm/run/box/sotd.sock"},
		{in: "unix:/run/d.sock", want: "/run/d.sock"},
		{in: "unix:rel/d.sock", want: "rel/d.sock"},
		{in: "/odd:name/d.sock", want: "/odd:name/d.sock"},
		{in: `C:\Users\me\sotd.sock`, want: `C:\Users\me\sotd.sock`},
		{in: "unix:", bad: `endpoint "unix:" names no socket: give unix:PATH`},
		{in: "tcp:127.0.0.1:4433", bad: `endpoint "tcp:127.0.0.1:4433": the stdio bridge reaches a daemon only on its Unix socket, unix:PATH or a path, not tcp:`},
	} {
		got, err := Endpoint(tc.in)
		switch {
		case tc.bad != "" && (err == nil || err.Error() != tc.bad):
			t.Errorf("Endpoint(%q) = %q, %v; want the error %q", tc.in, got, err, tc.bad)
		case tc.bad == "" && (err != nil || got != tc.want):
			t.Errorf("Endpoint(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
