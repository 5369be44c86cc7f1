package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/daemontest"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// largeHome is a home whose registry lists alice and n other sessions of
// this box; n of 300 puts it past daemonRowsFrom.
func largeHome(t testing.TB, n int) *Session {
	t.Helper()
	t.Setenv(home.EnvSocket, "")
	now := registry.Stamp(time.Now())
	seen := map[string]string{"alice": now}
	for i := range n {
		seen[fmt.Sprintf("s%05d", i)] = now
	}
	return registryHome(t, seen)
}

// registryHome is a fresh home whose registry lists each session of seen,
// on this box, last seen at its stamp.
func registryHome(t testing.TB, seen map[string]string) *Session {
	t.Helper()
	t.Setenv(home.EnvName, "")
	h, err := home.At(testutil.ShortDir(t, "rv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	agents := map[string]any{}
	for name, at := range seen {
		agents[name] = map[string]any{"host": "box", "repo": "r", "root": "/src/r", "joined": at, "last_seen": at}
	}
	doc, _ := json.Marshal(map[string]any{"protocol_version": 1, "agents": agents})
	if err := home.WriteAtomic(h.Registry(), doc); err != nil {
		t.Fatal(err)
	}
	return &Session{Home: h, Host: "box", Cwd: t.TempDir(), Stdout: io.Discard, Stderr: io.Discard, Now: time.Now}
}

// TestReadRowsThroughTheDaemon: over a large registry with this box's daemon
// running, a row read is present, absent once removed, and unreadable (never
// absent) once the registry is torn, as a read of the file answers.
func TestReadRowsThroughTheDaemon(t *testing.T) {
	s := largeHome(t, 300)
	daemontest.Start(t, s.Home, s.Host)
	if _, ok, err := s.Lookup("alice"); err != nil || !ok {
		t.Fatalf("alice: present %v, err %v; want present", ok, err)
	}
	if err := registry.Update(s.Home, registry.Ruled(), func(d *registry.Doc) error { delete(d.Agents, "alice"); return nil }); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Lookup("alice"); err != nil || ok {
		t.Fatalf("alice removed: present %v, err %v; want absent", ok, err)
	}
	b, err := os.ReadFile(s.Home.Registry())
	if err != nil {
		t.Fatal(err)
	}
	if err := home.WriteAtomic(s.Home.Registry(), b[:len(b)-2]); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Lookup("s00001"); !errors.Is(err, registry.ErrUnreadable) || ok {
		t.Fatalf("a torn registry: present %v, err %v; want ErrUnreadable", ok, err)
	}
}

const fakeDaemonEnv = "SOTD_TEST_FAKE_DAEMON"

// TestHelperFakeDaemon serves forgingDaemon on the socket the parent names.
func TestHelperFakeDaemon(t *testing.T) {
	sock := os.Getenv(fakeDaemonEnv)
	if sock == "" {
		t.Skip("a helper process for TestReadRowsTakesOnlyItsOwnAccountsDaemon")
	}
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	forgingDaemon(l)
}

// forgingDaemon accepts hellos and answers every registry.rows with a forged
// alice, until l is closed.
func forgingDaemon(l net.Listener) {
	for {
		nc, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer nc.Close()
			r, w := wire.NewReader(nc), wire.NewWriter(nc)
			for {
				env, err := r.Read()
				if err != nil {
					return
				}
				switch env.Op {
				case wire.OpHello:
					w.Write(env.ID, wire.KindRes, env.Op, wire.HelloOK{Host: "box", Protocol: wire.Protocol})
				case wire.OpRegistryRows:
					w.Write(env.ID, wire.KindRes, env.Op, wire.RegistryRowsOK{ProtocolVersion: 1, Rows: map[string]json.RawMessage{"alice": json.RawMessage(`{"host":"forged"}`)}})
				}
			}
		}()
	}
}

// TestListOfATornRegistryFails: with a daemon answering net.list, a list
// still checks the registry file, and a torn one lists nothing.
func TestListOfATornRegistryFails(t *testing.T) {
	s := largeHome(t, 300)
	var out strings.Builder
	s.Stdout = &out
	daemontest.Start(t, s.Home, s.Host)
	if code := s.List(ListArgs{JSON: true}); code != ExitOK || strings.Count(out.String(), `"handle"`) != 301 {
		t.Fatalf("list: exit %d, %d entries; want 301:\n%.300s", code, strings.Count(out.String(), `"handle"`), out.String())
	}
	b, err := os.ReadFile(s.Home.Registry())
	if err != nil {
		t.Fatal(err)
	}
	if err := home.WriteAtomic(s.Home.Registry(), b[:len(b)/2]); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := s.List(ListArgs{}); code != ExitFailed || !strings.Contains(out.String(), "FAILED: the registry could not be read; nothing was listed") {
		t.Fatalf("list of a torn registry: exit %d:\n%s", code, out.String())
	}
}
