package daemon

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestEndpointIsPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps no Unix mode bits")
	}
	r := startRig(t)
	if want := filepath.Join(r.home.Dir, "run", "box", "sotd.sock"); r.sock != want {
		t.Fatalf("socket at %s, want the default %s", r.sock, want)
	}
	for path, want := range map[string]os.FileMode{r.sock: 0o600, filepath.Dir(r.sock): 0o700} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s has mode %o, want %o", path, got, want)
		}
	}
}

func TestStaleSocketIsReplaced(t *testing.T) {
	h := newHome(t)
	sock := filepath.Join(h.Dir, "run", "box", "sotd.sock")
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	// A daemon that died leaves its socket file behind and nobody listening.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("the stale socket should exist: %v", err)
	}
	r := startOn(t, h)
	if _, err := call(t, r.dial(t), wireReq("bob")); err != nil {
		t.Fatalf("filing through the replacing daemon: %v", err)
	}
	if !r.logs.Contains("replaced a stale socket") {
		t.Errorf("the replacement was not logged:\n%s", r.logs.String())
	}
}

func TestLiveDaemonIsNotReplaced(t *testing.T) {
	r := startRig(t)
	d, err := New(Config{Home: r.home, Host: "box"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = d.Run(ctx)
	if err == nil {
		t.Fatal("a second daemon started on a live daemon's socket")
	}
	want := "a daemon already serves " + r.sock + " (pid "
	if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
		want += strconv.Itoa(os.Getpid()) + ")"
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("second daemon: %v; want it to say %q", err, want)
	}
	// The first one still serves.
	if _, err := call(t, r.dial(t), wireReq("bob")); err != nil {
		t.Fatalf("the first daemon after the refused second: %v", err)
	}
}

func TestSocketOverride(t *testing.T) {
	h := newHome(t)
	sock := filepath.Join(h.Dir, "x.sock")
	t.Setenv("SOT_SOCKET", sock)
	r := startOn(t, h)
	if r.sock != sock {
		t.Fatalf("socket at %s, want $SOT_SOCKET's %s", r.sock, sock)
	}
	if _, err := call(t, r.dial(t), wireReq("bob")); err != nil {
		t.Fatal(err)
	}
}
