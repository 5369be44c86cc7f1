package web

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/metrics"
)

func get(t *testing.T, url, bearer string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestEveryPathNeedsTheToken(t *testing.T) {
	r := startServer(t, 0, View{})
	base := "http://" + r.srv.Addr()
	tok := r.srv.token
	tests := []struct {
		name, url, bearer string
		status            int
		has               string
	}{
		{"page bare", base + "/", "", 401, "sotd url"},
		{"metrics bare", base + "/metrics", "", 401, "token"},
		{"ws bare", base + "/v1/ws", "", 401, "token"},
		{"page wrong token", base + "/?token=nope", "", 401, ""},
		{"page bearer wrong", base + "/", "nope", 401, ""},
		{"page query token", base + "/?token=" + tok, "", 200, "<html"},
		{"page bearer", base + "/", tok, 200, "<html"},
		{"metrics bearer", base + "/metrics", tok, 200, "sotd_lines_filed_total"},
		{"pprof bare", base + "/debug/pprof/", "", 401, "token"},
		{"pprof heap bare", base + "/debug/pprof/heap", "", 401, "token"},
		{"pprof bearer", base + "/debug/pprof/", tok, 200, "Types of profiles available"},
		{"pprof goroutine dump", base + "/debug/pprof/goroutine?debug=1", tok, 200, "goroutine profile:"},
		{"pprof heap", base + "/debug/pprof/heap", tok, 200, "\x1f\x8b"}, // gzipped, as go tool pprof reads it
		{"pprof cpu", base + "/debug/pprof/profile?seconds=0.2", tok, 200, "\x1f\x8b"},
		{"pprof unknown", base + "/debug/pprof/nope", tok, 404, "no such profile"},
		{"unknown path", base + "/nope", tok, 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := get(t, tc.url, tc.bearer)
			if status != tc.status || !strings.Contains(body, tc.has) {
				t.Fatalf("GET %s: %d %.80q, want %d with %q", tc.url, status, body, tc.status, tc.has)
			}
		})
	}
}

// Filing moves the served counter, read through the listener a person uses.
func TestMetricsCounterMovesThroughTheListener(t *testing.T) {
	r := startServer(t, 0, View{})
	sample := func() string {
		_, body := get(t, "http://"+r.srv.Addr()+"/metrics", r.srv.token)
		for _, l := range strings.Split(body, "\n") {
			if strings.HasPrefix(l, "sotd_lines_filed_total ") {
				return l
			}
		}
		t.Fatal("sotd_lines_filed_total is not served")
		return ""
	}
	before := sample()
	metrics.Filed(2)
	if after := sample(); after == before {
		t.Fatalf("sotd_lines_filed_total stayed %q after filing", after)
	}
}

func TestAddrAndTokenFiles(t *testing.T) {
	r := startServer(t, 0, View{})
	for _, path := range []string{AddrFile(r.home, "box"), TokenFile(r.home, "box")} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != home.FileMode {
			t.Errorf("%s is %v, want 0600", path, fi.Mode().Perm())
		}
	}
	if fi, _ := os.Stat(r.home.RunDir("box")); fi.Mode().Perm() != home.DirMode {
		t.Errorf("run dir is %v, want 0700", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(AddrFile(r.home, "box"))
	if strings.TrimSpace(string(b)) != r.srv.Addr() {
		t.Errorf("http.addr holds %q, the listener is on %s", b, r.srv.Addr())
	}
	u, err := URL(r.home, "box")
	if err != nil || u != pageURL(r.srv.Addr(), r.srv.token) || !strings.Contains(u, "token="+r.srv.token) {
		t.Errorf("URL = %q, %v; want %q", u, err, pageURL(r.srv.Addr(), r.srv.token))
	}
	// The token is made once: a second server for the home keeps it.
	again, err := New(Config{Home: r.home, Host: "box", Backend: r.fake})
	if err != nil || again.token != r.srv.token {
		t.Errorf("a second server's token %q, %v; want the first's", again.token, err)
	}
	if other, _ := New(Config{Home: r.home, Host: "nas", Backend: r.fake}); other.token == r.srv.token {
		t.Error("two boxes sharing a home share a token")
	}
	r.stop()
	if _, err := os.Stat(AddrFile(r.home, "box")); !os.IsNotExist(err) {
		t.Errorf("http.addr outlived its listener: %v", err)
	}
	if _, err := os.Stat(TokenFile(r.home, "box")); err != nil {
		t.Errorf("the token went with the listener: %v", err)
	}
}

func TestTokenFileFaults(t *testing.T) {
	tests := []struct {
		name  string
		setup func(h home.Home) error
		says  string
	}{
		{"too short", func(h home.Home) error {
			os.MkdirAll(h.RunDir("box"), 0o700)
			return os.WriteFile(TokenFile(h, "box"), []byte("abc\n"), 0o600)
		}, "too short"},
		{"a directory", func(h home.Home) error { return os.MkdirAll(TokenFile(h, "box"), 0o700) }, "http.token"},
		// A link to a token-like file elsewhere is never followed: its holder
		// would choose the page's token.
		{"a symlink", func(h home.Home) error {
			os.MkdirAll(h.RunDir("box"), 0o700)
			elsewhere := h.Dir + "/chosen"
			if err := os.WriteFile(elsewhere, []byte(strings.Repeat("a", 64)+"\n"), 0o600); err != nil {
				return err
			}
			return os.Symlink(elsewhere, TokenFile(h, "box"))
		}, "run/box/http.token is a symlink, not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := home.At(t.TempDir())
			if err := tc.setup(h); err != nil {
				t.Fatal(err)
			}
			if _, err := LoadToken(h, "box"); err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("LoadToken = %v, want an error saying %q", err, tc.says)
			}
		})
	}
	h, _ := home.At(t.TempDir())
	if _, err := URL(h, "box"); err == nil || !strings.Contains(err.Error(), "sotd serve") {
		t.Fatalf("URL with no listener = %v, want advice to start sotd serve", err)
	}
}

func TestListenAddress(t *testing.T) {
	a, _ := home.At(t.TempDir())
	b, _ := home.At(t.TempDir())
	if DefaultAddr(a) == DefaultAddr(b) {
		t.Logf("two homes hashed to one port %s; the fallback covers it", DefaultAddr(a))
	}
	if DefaultAddr(a) != DefaultAddr(a) {
		t.Fatal("a home's default port is not stable")
	}
	// Occupy a's default port: the default falls back to a free one, a chosen one fails.
	busy, err := net.Listen("tcp", DefaultAddr(a))
	if err != nil {
		t.Skipf("the default port is already taken on this box: %v", err)
	}
	defer busy.Close()
	tests := []struct {
		name, addr string
		ok         bool
	}{
		{"default taken falls back", "", true},
		{"chosen taken fails", DefaultAddr(a), false},
		{"not loopback", "0.0.0.0:0", false},
		{"not an address", "nowhere", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(Config{Home: a, Host: "box", Addr: tc.addr, Backend: newFake(View{})})
			if err != nil {
				t.Fatal(err)
			}
			err = s.Listen()
			if (err == nil) != tc.ok {
				t.Fatalf("Listen(%q) = %v, want ok %v", tc.addr, err, tc.ok)
			}
			if err == nil {
				if s.Addr() == DefaultAddr(a) {
					t.Fatal("listened on the taken port")
				}
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				if err := s.Serve(ctx); err != nil {
					t.Fatalf("Serve after cancel: %v", err)
				}
			}
		})
	}
}

// TestListenWhereTheLastListenerWas restarts a home's listener: with no address
// chosen it takes the one the last listener recorded, even a fallback port while
// the default is free again, so a page left open reconnects to the same URL.
func TestListenWhereTheLastListenerWas(t *testing.T) {
	h, _ := home.At(t.TempDir())
	busy, err := net.Listen("tcp", DefaultAddr(h))
	if err != nil {
		t.Skipf("the default port is already taken on this box: %v", err)
	}
	listen := func() string {
		t.Helper()
		s, err := New(Config{Home: h, Host: "box", Backend: newFake(View{})})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Listen(); err != nil {
			t.Fatal(err)
		}
		addr := s.Addr()
		s.ln.Close()
		return addr
	}
	first := listen()
	if first == DefaultAddr(h) {
		t.Fatal("listened on the taken default port")
	}
	busy.Close()
	if again := listen(); again != first {
		t.Fatalf("the restarted listener is on %s, want %s where the last one was", again, first)
	}
	if err := os.WriteFile(AddrFile(h, "box"), []byte("0.0.0.0:1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := listen(); got != DefaultAddr(h) {
		t.Fatalf("with a recorded address that is not loopback the listener is on %s, want the default %s", got, DefaultAddr(h))
	}
}

// TestOnlyLoopbackNamesAndOwnPagesAreServed: a request must name this
// listener by a loopback address and its port, and a page's request must come
// from such an origin, the WebSocket's included, even with the token; what a
// DNS-rebinding page sends (its own name as Host and as Origin) is refused.
// Every answer forbids framing.
func TestOnlyLoopbackNamesAndOwnPagesAreServed(t *testing.T) {
	r := startServer(t, 0, View{})
	addr := r.srv.Addr()
	_, port, _ := net.SplitHostPort(addr)
	tests := []struct {
		name, path, host, origin string
		ws                       bool
		status                   int
	}{
		{"page by its address", "/", addr, "", false, 200},
		{"page by localhost", "/", "localhost:" + port, "", false, 200},
		{"page by ::1", "/", "[::1]:" + port, "", false, 200},
		{"page by a rebound name", "/", "evil.example:" + port, "", false, 421},
		{"page by another port", "/", "127.0.0.1:1", "", false, 421},
		{"page with no port", "/", "127.0.0.1", "", false, 421},
		{"metrics by a rebound name", "/metrics", "evil.example:" + port, "", false, 421},
		{"ws from its own page", "/v1/ws", addr, "http://" + addr, true, 101},
		{"ws from a rebound page", "/v1/ws", "evil.example:" + port, "http://evil.example:" + port, true, 421},
		{"ws from another site", "/v1/ws", addr, "http://evil.example", true, 403},
		{"ws from another port", "/v1/ws", addr, "http://127.0.0.1:1", true, 403},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, "http://"+addr+tc.path, nil)
			req.Host = tc.host
			req.Header.Set("Authorization", "Bearer "+r.srv.token)
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.ws {
				req.Header.Set("Connection", "Upgrade")
				req.Header.Set("Upgrade", "websocket")
				req.Header.Set("Sec-WebSocket-Version", "13")
				req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("GET %s with Host %q, Origin %q: %d, want %d", tc.path, tc.host, tc.origin, resp.StatusCode, tc.status)
			}
			if got := resp.Header.Get("Content-Security-Policy"); got != "frame-ancestors 'none'" {
				t.Errorf("Content-Security-Policy %q, want frame-ancestors 'none'", got)
			}
		})
	}
}
